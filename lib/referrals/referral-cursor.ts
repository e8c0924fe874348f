import { createHmac, timingSafeEqual } from 'node:crypto';
import { fieldError } from '../errors.js';
import { serverKey } from '../secrets/server-keys.js';

// Paging cursors are opaque to clients and signed with a server key, bound to the company and
// the user whose list they page, so a cursor cannot be forged or replayed against another list.

function signature(companyId: string, userId: string, sortKey: string): Buffer {
  return createHmac('sha256', serverKey('cursor')).update(`${companyId}|${userId}|${sortKey}`).digest();
}

export function encodeCursor(companyId: string, userId: string, sortKey: string): string {
  return `${Buffer.from(sortKey).toString('base64url')}.${signature(companyId, userId, sortKey).toString('base64url')}`;
}

/** The position a cursor names, or BAD_REQUEST on the cursor field if it is not one we issued. */
export function decodeCursor(companyId: string, userId: string, cursor: string): string {
  const [encodedKey, encodedSignature, ...rest] = cursor.split('.');
  if (encodedKey && encodedSignature && rest.length === 0) {
    const sortKey = Buffer.from(encodedKey, 'base64url').toString('utf8');
    const given = Buffer.from(encodedSignature, 'base64url');
    const expected = signature(companyId, userId, sortKey);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return sortKey;
  }
  throw fieldError('BAD_REQUEST', 'cursor', 'is not a cursor of this list');
}
