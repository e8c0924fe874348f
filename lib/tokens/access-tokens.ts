import type { App } from '../app.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { hashToken, randomToken } from '../secrets/hashing.js';
import { getToken, putToken, type TokenRecord, tokenPut } from '../store/token-store.js';
import type { TransactItem } from '../store/transactions.js';

// Opaque bearer tokens: 256 random bits, stored only as their SHA-256, bound to one user of
// one company, valid for config.tokenTtlSeconds.

export const TOKEN_TYPE = 'Token';

/** Who a valid token speaks for. */
export interface Principal {
  companyId: string;
  userId: string;
  userType: number;
}

export interface IssuedToken {
  /** The value for the client; it exists only in this answer. */
  token: string;
  /** The transaction item that stores the token's hash. */
  write: TransactItem;
}

type TokenParts = Pick<App, 'table' | 'clock' | 'config'>;

function newTokenRecord({ clock, config }: TokenParts, userId: string, userType: number): TokenRecord {
  const now = epochSeconds(clock);
  return { user_id: userId, user_type: userType, created_at: now, expires_at: now + config.tokenTtlSeconds };
}

/** A new token and the transaction item that stores it, for a write that creates its user too. */
export function issueAccessToken(app: TokenParts, companyId: string, userId: string, userType: number): IssuedToken {
  const token = randomToken();
  return { token, write: tokenPut(app.table, companyId, hashToken(token), newTokenRecord(app, userId, userType)) };
}

/** A new token for an existing user, stored at once. */
export async function createAccessToken(app: TokenParts, companyId: string, userId: string, userType: number): Promise<string> {
  const token = randomToken();
  await putToken(app.table, companyId, hashToken(token), newTokenRecord(app, userId, userType));
  return token;
}

const AUTHORIZATION_PATTERN = /^Token\s+([A-Za-z0-9_-]{16,256})$/i;

/** The principal of an Authorization header, or UNAUTHORIZED when it is malformed, unknown or expired. */
export async function authenticate(app: TokenParts, companyId: string, authorization: string | undefined): Promise<Principal> {
  const match = authorization?.trim().match(AUTHORIZATION_PATTERN);
  if (!match?.[1]) throw new AppError('UNAUTHORIZED', { detail: 'Authorization must be "Token <access token>"' });

  const record = await getToken(app.table, companyId, hashToken(match[1]));
  // DynamoDB deletes expired items late (and DynamoDB Local never): expiry is checked here.
  if (!record || record.expires_at <= epochSeconds(app.clock)) {
    throw new AppError('UNAUTHORIZED', { detail: 'token is unknown or expired' });
  }
  return { companyId, userId: record.user_id, userType: record.user_type };
}
