import type { App } from '../app.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { hashToken, randomToken } from '../secrets/hashing.js';
import { sessionKey } from '../store/keys.js';
import { getSession, type SessionRecord, sessionGrant, sessionPut, touchSession } from '../store/session-store.js';
import { ConditionsFailed, type TransactItem, writeTransaction } from '../store/transactions.js';

// Sessions are opaque bearer tokens: "<user id>.<256 random bits>", stored only as the SHA-256 of
// the whole value, in the user's partition (so all of a user's sessions are one Query away),
// bound to one user of one company. A session is over after config.tokenTtlSeconds (expires_at,
// the table's TTL attribute), after config.sessionIdleSeconds unused (counted from last_used_at,
// the one attribute a use writes, so referral_program's role may write nothing else), when it is
// logged out, or when its user stops being active.

export const TOKEN_TYPE = 'Token';

/** Who a valid token speaks for, and which session it is. */
export interface Principal {
  companyId: string;
  userId: string;
  userType: number;
  /** The SHA-256 of the token: the session's id. */
  sessionId: string;
}

export interface IssuedToken {
  /** The value for the client; it exists only in this answer. */
  token: string;
  /** The transaction item that stores the session. */
  write: TransactItem;
}

type SessionParts = Pick<App, 'table' | 'clock' | 'config'>;

function newSessionRecord({ clock, config }: SessionParts, userType: number): SessionRecord {
  const now = epochSeconds(clock);
  return {
    user_type: userType,
    created_at: now,
    last_used_at: now,
    expires_at: now + config.tokenTtlSeconds,
  };
}

/** A new token and the transaction item that stores its session, for a write that creates its user too. */
export function issueAccessToken(app: SessionParts, companyId: string, userId: string, userType: number): IssuedToken {
  const token = `${userId}.${randomToken()}`;
  return { token, write: sessionPut(app.table, companyId, userId, hashToken(token), newSessionRecord(app, userType)) };
}

/**
 * A new session for an existing user, granted only while the user is active (one transaction:
 * the session and the user's session count). Refused with UNAUTHORIZED when the user is not.
 */
export async function createSession(
  app: SessionParts,
  companyId: string,
  userId: string,
  userType: number,
  options: { phoneVerified?: boolean } = {},
): Promise<string> {
  const { token, write } = issueAccessToken(app, companyId, userId, userType);
  try {
    await writeTransaction(app.table, [
      { label: 'session', item: write },
      { label: 'user', item: sessionGrant(app.table, companyId, userId, { phoneVerified: options.phoneVerified ?? false }) },
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.labels.includes('user')) {
      throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
    }
    throw error;
  }
  return token;
}

/**
 * Whether a session is still in force: not past its lifetime, not idle too long. DynamoDB
 * deletes expired items late (and DynamoDB Local never): this is what decides.
 */
export function sessionIsLive(expiresAt: number, lastUsedAt: number, now: number, idleSeconds: number): boolean {
  return expiresAt > now && lastUsedAt + idleSeconds > now;
}

const AUTHORIZATION_PATTERN = /^Token\s+(([0-9a-f]{32})\.[A-Za-z0-9_-]{43})$/i;

/**
 * The principal of an Authorization header, or UNAUTHORIZED when it is malformed, unknown, ended,
 * expired or idle too long. Records the session's use at most once per touch interval.
 */
export async function authenticate(app: SessionParts, companyId: string, authorization: string | undefined): Promise<Principal> {
  const match = authorization?.trim().match(AUTHORIZATION_PATTERN);
  if (!match?.[1] || !match[2]) throw new AppError('UNAUTHORIZED', { detail: 'Authorization must be "Token <access token>"' });
  const [, token, userId] = match;
  const sessionId = hashToken(token);
  const session = await getSession(app.table, companyId, userId, sessionId);
  const now = epochSeconds(app.clock);
  const { sessionIdleSeconds, sessionTouchSeconds } = app.config;
  if (!session || !sessionIsLive(session.expires_at, session.last_used_at, now, sessionIdleSeconds)) {
    throw new AppError('UNAUTHORIZED', { detail: 'token is unknown, ended, expired or idle too long' });
  }
  if (now - session.last_used_at >= sessionTouchSeconds) {
    await touchSession(app.table, sessionKey(companyId, userId, sessionId), session.last_used_at, now);
  }
  return { companyId, userId, userType: session.user_type, sessionId };
}
