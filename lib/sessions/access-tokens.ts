import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { hashToken, randomToken } from '../secrets/hashing.js';
import { sessionKey } from '../store/keys.js';
import {
  type GrantTerms,
  getSession,
  type SessionRecord,
  type SessionStart,
  sessionGrant,
  sessionPut,
  touchSession,
} from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from '../store/transactions.js';

export type { SessionStart };

// Sessions are opaque bearer tokens: "<user id>.<256 random bits>", stored only as the SHA-256 of
// the whole value, in the user's partition (so all of a user's sessions are one Query away),
// bound to one user of one company. A session is over after config.tokenTtlSeconds (expires_at,
// the table's TTL attribute), after config.sessionIdleSeconds unused (counted from last_used_at,
// the one attribute a use writes, so referral_program's role may write nothing else), when it is
// logged out, or when its user stops being active.

export const TOKEN_TYPE = 'Token';

/** How a new session begins: by registration, OTP login or PIN login, on a bound device or none. */
export interface SessionOrigin {
  began: SessionStart;
  deviceKey?: string | undefined;
}

interface IssuedToken {
  /** The value for the client; it exists only in this answer. */
  token: string;
  /** The transaction item that stores the session. */
  write: TransactItem;
}

type SessionParts = Pick<App, 'table' | 'clock' | 'config'>;

function newSessionRecord({ clock, config }: SessionParts, userType: number, start: SessionOrigin): SessionRecord {
  const now = epochSeconds(clock);
  return {
    user_type: userType,
    began: start.began,
    ...(start.deviceKey ? { device_key: start.deviceKey } : {}),
    created_at: now,
    last_used_at: now,
    expires_at: now + config.tokenTtlSeconds,
  };
}

/** A new token and the transaction item that stores its session, for a write that creates its user too. */
export function issueAccessToken(
  app: SessionParts,
  companyId: string,
  userId: string,
  userType: number,
  start: SessionOrigin,
): IssuedToken {
  const token = `${userId}.${randomToken()}`;
  return { token, write: sessionPut(app.table, companyId, userId, hashToken(token), newSessionRecord(app, userType, start)) };
}

/** What else a session grant writes or requires, in its one transaction (a device bound or used, a PIN's count cleared). */
export interface GrantWith<Label extends string> {
  terms?: GrantTerms;
  items?: LabelledItem<Label>[];
}

/** A grant refused by a condition other than the user's: the labels of the items it guarded. */
export class GrantRefused<Label extends string> extends Error {
  constructor(readonly labels: Label[]) {
    super(`session grant refused: ${labels.join(', ')}`);
    this.name = 'GrantRefused';
  }
}

/**
 * A new session for an existing user, granted only while the user is active (one transaction:
 * the session, the user's session count and whatever else the grant comes with). Refused with
 * UNAUTHORIZED when the user's conditions fail (not active, a PIN changed since compared, the
 * device count reached), with GrantRefused naming the other items whose conditions failed.
 */
export async function createSession<Label extends string>(
  app: SessionParts,
  companyId: string,
  userId: string,
  userType: number,
  start: SessionOrigin,
  grant: GrantWith<Label> = {},
): Promise<string> {
  const { token, write } = issueAccessToken(app, companyId, userId, userType, start);
  try {
    await writeTransaction<string>(app.table, [
      { label: 'session', item: write },
      { label: 'user', item: sessionGrant(app.table, companyId, userId, grant.terms) },
      ...(grant.items ?? []),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // With a device counted, the user's condition may be the count raced by another binding: the caller reads again.
    if (error.labels.includes('user') && grant.terms?.deviceCount?.max === undefined)
      throw new AppError('UNAUTHORIZED', { detail: 'the user is not active, or changed meanwhile' });
    throw new GrantRefused(error.labels as Label[]);
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
  return {
    companyId,
    userId,
    userType: session.user_type,
    sessionId,
    session: { began: session.began, beganAt: session.created_at, deviceKey: session.device_key },
  };
}
