import { createHmac, timingSafeEqual } from 'node:crypto';
import { fieldError } from '../errors.js';
import type { ServerKeys } from '../secrets/server-keys.js';

// Paging cursors are opaque to clients and signed with a server key, bound to the company and
// the user whose list they page, so a cursor cannot be forged or replayed against another list.
// Form: <key version>.<sort key, base64url>.<signature, base64url>.

function signature(key: Buffer, companyId: string, userId: string, sortKey: string): Buffer {
  return createHmac('sha256', key).update(`${companyId}|${userId}|${sortKey}`).digest();
}

export async function encodeCursor(keys: ServerKeys, companyId: string, userId: string, sortKey: string): Promise<string> {
  const { version, key } = await keys.current('cursor');
  return [version, Buffer.from(sortKey).toString('base64url'), signature(key, companyId, userId, sortKey).toString('base64url')].join('.');
}

/** The position a cursor names, or BAD_REQUEST on the cursor field if it is not one we issued. */
export async function decodeCursor(keys: ServerKeys, companyId: string, userId: string, cursor: string): Promise<string> {
  const [version, encodedKey, encodedSignature, ...rest] = cursor.split('.');
  const keyVersion = Number(version);
  if (Number.isSafeInteger(keyVersion) && keyVersion > 0 && encodedKey && encodedSignature && rest.length === 0) {
    const key = await keys.atVersion('cursor', keyVersion);
    const sortKey = Buffer.from(encodedKey, 'base64url').toString('utf8');
    const given = Buffer.from(encodedSignature, 'base64url');
    const expected = key && signature(key, companyId, userId, sortKey);
    if (expected && given.length === expected.length && timingSafeEqual(given, expected)) return sortKey;
  }
  throw fieldError('BAD_REQUEST', 'cursor', 'is not a cursor of this list');
}
