import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { hashToken } from '../secrets/hashing.js';
import { sessionKey } from '../store/keys.js';
import { getSession, touchSession } from '../store/session-store.js';
import { accessTokenHash, type DpopProof, dpopRefused } from './dpop-proofs.js';
import { type AccessClaims, looksLikeJwt, signAccessToken, verifyAccessToken } from './jwt.js';
import { acrOfSession } from './session-strength.js';

// A session is one item in its user's partition, keyed by its id (the access token's `sid`),
// bound to one user of one company, begun by session-grant.ts. A login answers a signed access
// token over it (jwt.ts, short lived) and a refresh token (refresh-tokens.ts) that renews the
// access token while the session lives. A session is over after config.tokenTtlSeconds (expires_at, the table's TTL attribute),
// after config.sessionIdleSeconds unused (counted from last_used_at, the one attribute a use
// writes, so referral_program's role may write nothing else), when it is logged out, or when its
// user stops being active. Opaque tokens from before signed access tokens ("<user id>.<256 random
// bits>", their session keyed by the token's SHA-256) are still accepted until their session ends.

export const TOKEN_TYPE = 'Token';
/** The scheme of a token bound to a key (contract 3.17). */
export const DPOP_TOKEN_TYPE = 'DPoP';

export type TokenType = typeof TOKEN_TYPE | typeof DPOP_TOKEN_TYPE;

/** The scheme a client sends an access token with: DPoP when it is bound to a key. */
export const tokenTypeOf = (claims: Pick<AccessClaims, 'jkt'>): TokenType => (claims.jkt ? DPOP_TOKEN_TYPE : TOKEN_TYPE);

/** What a login answers (API contract 3.12): the access token, the refresh token, the access token's lifetime. */
export interface SessionTokens {
  token: { type: TokenType; token: string };
  refresh_token: string;
  expires_in: number;
}

/** The answer's tokens for a session: a new access token and the given refresh token. */
export async function sessionTokens(
  app: Pick<App, 'config' | 'clock' | 'signingKeys'>,
  claims: AccessClaims,
  sessionEndsAt: number,
  refreshToken: string,
): Promise<SessionTokens> {
  const access = await signAccessToken(app, claims, sessionEndsAt);
  return { token: { type: tokenTypeOf(claims), token: access.token }, refresh_token: refreshToken, expires_in: access.expiresIn };
}

/**
 * Whether a session is still in force: not past its lifetime, not idle too long. DynamoDB
 * deletes expired items late (and DynamoDB Local never): this is what decides.
 */
export function sessionIsLive(expiresAt: number, lastUsedAt: number, now: number, idleSeconds: number): boolean {
  return expiresAt > now && lastUsedAt + idleSeconds > now;
}

const AUTHORIZATION_PATTERN = /^(Token|Bearer|DPoP)\s+(\S+)$/i;
const OPAQUE_TOKEN_PATTERN = /^([0-9a-f]{32})\.[A-Za-z0-9_-]{43}$/;

const unauthorized = () => new AppError('UNAUTHORIZED', { detail: 'token is unknown, ended, expired or idle too long' });

/**
 * A token this service signed (or an opaque one of its shape) whose session is over: 401 like any
 * other, but naming the session, so that the retry of a request that ended it can be answered its
 * first outcome (lib/http/idempotency.ts).
 */
export class SessionOver extends AppError {
  constructor(readonly sessionId: string) {
    super('UNAUTHORIZED', { detail: 'token is unknown, ended, expired or idle too long' });
  }
}

/** The session an Authorization value names: an access token's `sid` once its signature holds, or an opaque token's hash. */
async function sessionNamed(
  app: Pick<App, 'config' | 'clock' | 'signingKeys'>,
  companyId: string,
  token: string,
): Promise<{ userId: string; sessionId: string; jkt?: string | undefined } | undefined> {
  const opaque = OPAQUE_TOKEN_PATTERN.exec(token);
  if (opaque?.[1]) return { userId: opaque[1], sessionId: hashToken(token) };
  if (!looksLikeJwt(token)) return undefined;
  const claims = await verifyAccessToken(app, companyId, token);
  return claims && { userId: claims.userId, sessionId: claims.sessionId, jkt: claims.jkt };
}

/**
 * A bound token (cnf.jkt) is only good as `DPoP <token>` with this request's proof by its key, over
 * this very token (ath): a copy of the token alone is worthless (contract 3.17).
 */
function requireProofOfPossession(scheme: string, token: string, jkt: string, proof: Pick<DpopProof, 'jkt' | 'ath'> | undefined): void {
  const refused = (reason: string) => dpopRefused(reason, { error: 'invalid_token' });
  if (scheme.toLowerCase() !== 'dpop') throw refused(`a bound token sent as ${scheme}`);
  if (!proof) throw refused('a bound token without a DPoP proof');
  if (proof.jkt !== jkt) throw refused('the proof is by another key than the token is bound to');
  if (proof.ath !== accessTokenHash(token)) throw refused('the proof’s ath is not this token’s hash');
}

/**
 * The principal of an Authorization header ("Token <token>", "Bearer <token>", or for a token bound
 * to a key "DPoP <token>" with the request's proof by that key), or UNAUTHORIZED
 * when it is malformed, forged, expired, of another company, or its session is unknown, ended or
 * idle too long. One read of the session, as before signed tokens; records its use at most once
 * per touch interval.
 */
export async function authenticate(
  app: Pick<App, 'table' | 'clock' | 'config' | 'signingKeys'>,
  companyId: string,
  authorization: string | undefined,
  proof?: Pick<DpopProof, 'jkt' | 'ath'>,
): Promise<Principal> {
  const [, scheme = '', presented] = authorization?.trim().match(AUTHORIZATION_PATTERN) ?? [];
  if (!presented) throw new AppError('UNAUTHORIZED', { detail: 'Authorization must be "Token <access token>"' });
  const named = await sessionNamed(app, companyId, presented);
  if (!named) throw unauthorized();
  const { userId, sessionId, jkt } = named;
  if (jkt) requireProofOfPossession(scheme, presented, jkt, proof);
  const session = await getSession(app.table, companyId, userId, sessionId);
  const now = epochSeconds(app.clock);
  const { sessionIdleSeconds, sessionTouchSeconds } = app.config;
  if (!session || !sessionIsLive(session.expires_at, session.last_used_at, now, sessionIdleSeconds)) throw new SessionOver(sessionId);
  if (now - session.last_used_at >= sessionTouchSeconds) {
    await touchSession(app.table, sessionKey(companyId, userId, sessionId), session.last_used_at, now);
  }
  return {
    companyId,
    userId,
    userType: session.user_type,
    sessionId,
    session: {
      began: session.began,
      beganAt: session.created_at,
      deviceKey: session.device_key,
      acr: acrOfSession(session),
      authTime: session.auth_at ?? session.created_at,
      credentialAt: session.credential_at,
      dpopJkt: session.dpop_jkt,
    },
  };
}
