import { createHmac } from 'node:crypto';
import { fieldError } from '../errors.js';
import type { ServerKeys } from '../secrets/server-keys.js';

// Paging cursors are opaque to clients and signed with a server key, bound to the company, the
// user whose list they page and the list itself, so a cursor cannot be forged or replayed against
// another list. Form: <key version>.<sort key, base64url>.<signature, base64url>.

/** The list a cursor pages and whose it is. */
export interface CursorScope {
  list: 'referrals' | 'notifications' | 'unread notifications';
  companyId: string;
  userId: string;
}

function signature(key: Buffer, { list, companyId, userId }: CursorScope, sortKey: string): Buffer {
  return createHmac('sha256', key).update(`${list}|${companyId}|${userId}|${sortKey}`).digest();
}

export async function encodeCursor(keys: ServerKeys, scope: CursorScope, sortKey: string): Promise<string> {
  const { version, key } = await keys.current('cursor');
  return [version, Buffer.from(sortKey).toString('base64url'), signature(key, scope, sortKey).toString('base64url')].join('.');
}

/** The position a cursor names, or BAD_REQUEST on the cursor field if it is not one we issued for this list. */
export async function decodeCursor(keys: ServerKeys, scope: CursorScope, cursor: string): Promise<string> {
  const [version, encodedKey, encodedSignature, ...rest] = cursor.split('.');
  const keyVersion = Number(version);
  if (Number.isSafeInteger(keyVersion) && keyVersion > 0 && encodedKey && encodedSignature && rest.length === 0) {
    const key = await keys.atVersion('cursor', keyVersion);
    const sortKey = Buffer.from(encodedKey, 'base64url').toString('utf8');
    const given = Buffer.from(encodedSignature, 'base64url');
    const expected = key && signature(key, scope, sortKey);
    if (expected && keys.equal(given, expected)) return sortKey;
  }
  throw fieldError('BAD_REQUEST', 'cursor', 'is not a cursor of this list');
}
