import { createHmac } from 'node:crypto';
import type { App } from '../app-context.js';
import { hashToken, randomToken } from '../secrets/hashing.js';

// Refresh tokens (API contract 3.12): opaque to the client,
//   <user id>.<session id>.<generation>.<key version>.<256 random bits>.<tag>
// The session keeps only the SHA-256 of its current one (refresh_hash) and its generation; a
// refresh spends it by a write conditional on that hash. The tag, an HMAC under the server
// secret's 'refresh' key over the company and the rest, lets the service tell a spent token it
// issued (an older generation: reuse, which ends the session) from a made-up one (merely
// refused): so no one who only read a token's ids, say from an access token, can end a session.
// A session's first token has 256 random bits; each successor's are an HMAC of the token it
// replaces under that key (successorOf), so the token just spent, presented again within the grace
// (a lost answer, two refreshes at once: contract 3.12, amended in round 5), gets the same
// successor back without the table holding it. A token is never derived from what the table holds.

export interface RefreshToken {
  userId: string;
  sessionId: string;
  generation: number;
  keyVersion: number;
  random: string;
  tag: string;
}

const REFRESH_TOKEN_PATTERN = /^([0-9a-f]{32})\.([0-9a-f]{32})\.([1-9]\d{0,8})\.([1-9]\d{0,8})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

/** Longest refresh token this service issues; anything longer is refused unread. */
export const REFRESH_TOKEN_MAX_LENGTH = 200;

const tagOf = (key: Buffer, companyId: string, token: Omit<RefreshToken, 'tag' | 'keyVersion'>) =>
  createHmac('sha256', key)
    .update(`${companyId}.${token.userId}.${token.sessionId}.${token.generation}.${token.random}`)
    .digest('base64url');

const textOf = (token: RefreshToken) =>
  `${token.userId}.${token.sessionId}.${token.generation}.${token.keyVersion}.${token.random}.${token.tag}`;

/** A new refresh token of a session's generation, and the hash the session keeps of it. */
export async function newRefreshToken(
  app: Pick<App, 'keys'>,
  companyId: string,
  ids: { userId: string; sessionId: string },
  generation: number,
): Promise<{ token: string; hash: string }> {
  const { version, key } = await app.keys.current('refresh');
  const unsigned = { ...ids, generation, random: randomToken() };
  const token = textOf({ ...unsigned, keyVersion: version, tag: tagOf(key, companyId, unsigned) });
  return { token, hash: hashToken(token) };
}

/** A refresh token's parts, or undefined when it is not shaped as one. */
export function parseRefreshToken(text: string): RefreshToken | undefined {
  const match = text.length <= REFRESH_TOKEN_MAX_LENGTH ? REFRESH_TOKEN_PATTERN.exec(text) : null;
  if (!match) return undefined;
  const [, userId = '', sessionId = '', generation = '', keyVersion = '', random = '', tag = ''] = match;
  return { userId, sessionId, generation: Number(generation), keyVersion: Number(keyVersion), random, tag };
}

/** Whether this service issued the token (its tag checks, compared in constant time) for this company. */
export async function issuedHere(app: Pick<App, 'keys'>, companyId: string, token: RefreshToken): Promise<boolean> {
  const key = await app.keys.atVersion('refresh', token.keyVersion);
  return key !== undefined && app.keys.equal(Buffer.from(token.tag), Buffer.from(tagOf(key, companyId, token)));
}

/**
 * The refresh token that follows `spent` (its text, as presented): the next generation, its random
 * part an HMAC of the spent token under the 'refresh' key of `keyVersion` (the current one unless
 * given), so the same spent token always has the same successor under one key version. Undefined
 * when that version is no longer kept.
 */
export async function successorOf(
  app: Pick<App, 'keys'>,
  companyId: string,
  spent: { text: string; token: RefreshToken },
  keyVersion?: number,
): Promise<{ token: string; hash: string; keyVersion: number } | undefined> {
  const versioned =
    keyVersion === undefined
      ? await app.keys.current('refresh')
      : { version: keyVersion, key: await app.keys.atVersion('refresh', keyVersion) };
  if (!versioned.key) return undefined;
  const { key, version } = versioned;
  const random = createHmac('sha256', key).update(`successor.${companyId}.${spent.text}`).digest('base64url');
  const unsigned = { userId: spent.token.userId, sessionId: spent.token.sessionId, generation: spent.token.generation + 1, random };
  const token = textOf({ ...unsigned, keyVersion: version, tag: tagOf(key, companyId, unsigned) });
  return { token, hash: hashToken(token), keyVersion: version };
}
