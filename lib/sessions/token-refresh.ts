import { randomUUID } from 'node:crypto';
import type { App } from '../app-context.js';
import { CREDENTIAL_REPLAY_SECONDS } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit } from '../observability/audit.js';
import { hashToken } from '../secrets/hashing.js';
import { sessionKey } from '../store/keys.js';
import { type SessionRecord, sessionEnd, spendRefreshToken } from '../store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { sessionIsLive, sessionTokens } from './access-tokens.js';
import { dpopRefused } from './dpop-proofs.js';
import { issuedHere, parseRefreshToken, type RefreshToken, successorOf } from './refresh-tokens.js';
import { acrOfSession } from './session-strength.js';
import type { TokenRefreshCall } from './token-refresh-input.js';
import type { TokenRefreshResult } from './token-refresh-result.js';

const refused = () => new AppError('UNAUTHORIZED', { detail: 'refresh token is unknown, spent, expired or its session ended' });

/**
 * Spends a refresh token for a new access token and refresh token (API contract 3.12): one write,
 * conditional on the session holding that token's hash and being live. The successor is derived
 * from the spent token (refresh-tokens.ts successorOf), so the token just spent, presented again
 * within config.refreshReuseGraceSeconds of its rotation (two refreshes at once, a lost answer) or
 * by a retry of the request that spent it (its Idempotency-Key, within CREDENTIAL_REPLAY_SECONDS),
 * gets the same successor and a fresh access token, and ends nothing. Any other spent token
 * presented again is reuse: someone else has a copy, so the whole session ends and the user is
 * told (event 7).
 */
export async function tokenRefresh(
  app: App,
  { body, company, origin, idempotencyRef, dpop }: TokenRefreshCall,
): Promise<TokenRefreshResult> {
  const companyId = company.company_id;
  const presented = parseRefreshToken(body.refresh_token);
  if (!presented) throw refused();
  const { userId, sessionId } = presented;
  const spent = { text: body.refresh_token, token: presented };
  const next = await successorOf(app, companyId, spent);
  if (!next) throw new Error('no current refresh key');
  const now = epochSeconds(app.clock);
  const presentedHash = hashToken(body.refresh_token);
  const spender = randomUUID();
  const outcome = await spendRefreshToken(app.table, sessionKey(companyId, userId, sessionId), {
    presentedHash,
    next: { hash: next.hash, generation: presented.generation + 1, keyVersion: next.keyVersion },
    spender,
    requestRef: idempotencyRef,
    now,
    idleSeconds: app.config.sessionIdleSeconds,
    dpopJkt: dpop?.jkt,
  });
  let session: SessionRecord;
  let refreshToken: string;
  if (outcome.spent) {
    session = outcome.session;
    refreshToken = next.token;
  } else {
    // A bound session's token without a proof by its key (contract 3.17): a copy is refused, and ends nothing, not even as reuse.
    if (outcome.seen?.dpop_jkt !== undefined && outcome.seen.dpop_jkt !== dpop?.jkt) {
      audit(app, origin, 'token_refresh_refused', { company_id: companyId, user_id: userId, outcome: 'dpop_key' });
      throw dpopRefused(
        dpop ? 'the refresh token is bound to another key' : 'the refresh token is bound to a key: a DPoP proof is needed',
        {
          error: 'invalid_token',
        },
      );
    }
    const again =
      outcome.seen && (await successorAgain(app, companyId, spent, outcome.seen, { presentedHash, spender, idempotencyRef, now }));
    if (!outcome.seen || !again) {
      await refuse(app, origin, companyId, presented, outcome.seen, now);
      throw refused();
    }
    session = outcome.seen;
    refreshToken = again;
  }
  const claims = {
    companyId,
    userId,
    sessionId,
    userType: session.user_type,
    began: session.began ?? 'otp',
    authTime: session.auth_at ?? session.created_at,
    acr: acrOfSession(session),
    // Fixed at the session's start: a proof sent to an unbound session's refresh binds nothing.
    jkt: session.dpop_jkt,
  };
  const tokens = await sessionTokens(app, claims, session.expires_at, refreshToken);
  audit(app, origin, 'token_refreshed', {
    company_id: companyId,
    user_id: userId,
    outcome: outcome.spent ? 'refreshed' : 'refreshed_again',
  });
  return { message: 'Tokens refreshed', ...tokens, user_id: userId };
}

/**
 * The successor of the token just spent, answered again: to this call's own write that the SDK sent
 * again after its answer was lost, within the grace of the rotation, or to a retry of the request
 * that spent it; only while it is still the session's current token and the session is live.
 */
async function successorAgain(
  app: App,
  companyId: string,
  spent: { text: string; token: RefreshToken },
  seen: SessionRecord,
  call: { presentedHash: string; spender: string; idempotencyRef: string | undefined; now: number },
): Promise<string | undefined> {
  if (seen.refresh_prev_hash !== call.presentedHash || seen.refreshed_at === undefined) return undefined;
  if (!sessionIsLive(seen.expires_at, seen.last_used_at, call.now, app.config.sessionIdleSeconds)) return undefined;
  const age = call.now - seen.refreshed_at;
  const grace = app.config.refreshReuseGraceSeconds;
  const ownWrite = seen.refreshed_by === call.spender;
  const withinGrace = grace > 0 && age <= grace;
  const sameRequest =
    call.idempotencyRef !== undefined && seen.refreshed_for_request === call.idempotencyRef && age <= CREDENTIAL_REPLAY_SECONDS;
  if (!ownWrite && !withinGrace && !sameRequest) return undefined;
  const successor = await successorOf(app, companyId, spent, seen.refresh_key_version);
  return successor && successor.hash === seen.refresh_hash ? successor.token : undefined;
}

/** Why a refresh was refused, and when it is reuse of a token this service issued, the session ended with a notice. */
async function refuse(
  app: App,
  origin: TokenRefreshCall['origin'],
  companyId: string,
  presented: RefreshToken,
  seen: SessionRecord | undefined,
  now: number,
): Promise<void> {
  const event = { company_id: companyId, user_id: presented.userId };
  if (!seen) return audit(app, origin, 'token_refresh_refused', { ...event, outcome: 'unknown_session' });
  if (!sessionIsLive(seen.expires_at, seen.last_used_at, now, app.config.sessionIdleSeconds)) {
    return audit(app, origin, 'token_refresh_refused', { ...event, outcome: 'session_over' });
  }
  const spent = presented.generation < (seen.refresh_gen ?? 0) && (await issuedHere(app, companyId, presented));
  if (!spent) return audit(app, origin, 'token_refresh_refused', { ...event, outcome: 'unknown_token' });
  try {
    await writeTransaction(app.table, [
      {
        label: 'session',
        item: sessionEnd(
          app.table,
          sessionKey(companyId, presented.userId, presented.sessionId),
          { reason: 'refresh_reuse', atMs: app.clock.now() },
          true,
        ),
      },
      ...securityNotificationWrites(app.table, companyId, presented.userId, {
        event: SecurityEvent.REFRESH_TOKEN_REUSED,
        nowMs: app.clock.now(),
      }).map((item) => ({ label: 'notification', item })),
    ]);
  } catch (error) {
    // Ended meanwhile (a reuse presented twice at once): the first one told the user.
    if (!(error instanceof ConditionsFailed)) throw error;
  }
  audit(app, origin, 'token_refresh_refused', { ...event, outcome: 'reused' });
  audit(app, origin, 'sessions_revoked', { ...event, outcome: 'refresh_reuse', revoked: 1 });
}
