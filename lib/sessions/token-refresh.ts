import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit } from '../observability/audit.js';
import { hashToken } from '../secrets/hashing.js';
import { sessionKey } from '../store/keys.js';
import { type SessionRecord, sessionEnd, spendRefreshToken } from '../store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { sessionIsLive, sessionTokens } from './access-tokens.js';
import { issuedHere, newRefreshToken, parseRefreshToken, type RefreshToken } from './refresh-tokens.js';
import type { TokenRefreshCall } from './token-refresh-input.js';
import type { TokenRefreshResult } from './token-refresh-result.js';

const refused = () => new AppError('UNAUTHORIZED', { detail: 'refresh token is unknown, spent, expired or its session ended' });

/**
 * Spends a refresh token for a new access token and refresh token (API contract 3.12): one write,
 * conditional on the session holding that token's hash and being live (two refreshes of one token:
 * one wins). A spent token presented again is reuse: someone else has a copy, so the whole session
 * ends and the user is told (event 7). A request sent again with its Idempotency-Key never gets
 * here: the chain answers it the pair it answered first (lib/http/idempotency.ts).
 */
export async function tokenRefresh(app: App, { body, company, origin }: TokenRefreshCall): Promise<TokenRefreshResult> {
  const companyId = company.company_id;
  const presented = parseRefreshToken(body.refresh_token);
  if (!presented) throw refused();
  const { userId, sessionId } = presented;
  const next = await newRefreshToken(app, companyId, { userId, sessionId }, presented.generation + 1);
  const now = epochSeconds(app.clock);
  const key = sessionKey(companyId, userId, sessionId);
  const outcome = await spendRefreshToken(app.table, key, {
    presentedHash: hashToken(body.refresh_token),
    next: { hash: next.hash, generation: presented.generation + 1 },
    now,
    idleSeconds: app.config.sessionIdleSeconds,
  });
  // A write the SDK sent again after its answer was lost finds its own next hash: it was spent by this call.
  const session = outcome.spent ? outcome.session : outcome.seen?.refresh_hash === next.hash ? outcome.seen : undefined;
  if (!session) {
    if (!outcome.spent) await refuse(app, origin, companyId, presented, outcome.seen, now);
    throw refused();
  }
  const claims = { companyId, userId, sessionId, userType: session.user_type, began: session.began ?? 'otp' };
  const tokens = await sessionTokens(app, claims, session.expires_at, next.token);
  audit(app, origin, 'token_refreshed', { company_id: companyId, user_id: userId, outcome: 'refreshed' });
  return { message: 'Tokens refreshed', ...tokens, user_id: userId };
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
