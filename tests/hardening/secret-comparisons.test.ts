// Secrets are compared in constant time where a client's guess meets a stored value in our
// code: password and PIN hashes, and cursor signatures. (One-time codes are compared by
// DynamoDB as keyed HMACs, tokens are looked up by their SHA-256: no comparison in our code.)
import { timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app.js';
import { readConfig } from '../../lib/config.js';
import { decodeCursor, encodeCursor } from '../../lib/paging/list-cursor.js';
import { hashPassword, hashPin, PASSWORD_SCRYPT, PIN_SCRYPT, verifyPassword, verifyPin } from '../../lib/secrets/hashing.js';
import type { CompareSecrets } from '../../lib/secrets/server-keys.js';
import { testEnvironment } from '../helpers.js';

const comparisons = { calls: [] as [Buffer, Buffer][] };

/** The service's comparison, handed in through the app's parts, recording what it compares. */
const recordingComparison: CompareSecrets = (given, expected) => {
  comparisons.calls.push([given, expected]);
  return timingSafeEqual(given, expected);
};
const { keys } = createApp(readConfig(testEnvironment()), { compareSecrets: recordingComparison });

/** The comparisons made while the action runs; the action's own failure fails the test. */
async function comparedDuring(action: () => Promise<unknown>): Promise<[Buffer, Buffer][]> {
  comparisons.calls = [];
  await action();
  return comparisons.calls;
}

const BAD_CURSOR = { errorName: 'BAD_REQUEST', fields: [expect.objectContaining({ field: 'cursor' })] };

describe('constant-time comparison of secrets', () => {
  it('checks a password against its scrypt hash with timingSafeEqual, right or wrong', async () => {
    const stored = await hashPassword('correct horse battery', PASSWORD_SCRYPT);
    const right = await comparedDuring(async () => expect(await verifyPassword(keys, 'correct horse battery', stored)).toBe(true));
    const wrong = await comparedDuring(async () => expect(await verifyPassword(keys, 'correct horse battery!', stored)).toBe(false));
    for (const calls of [right, wrong]) {
      expect(calls).toHaveLength(1);
      expect(calls[0]![0].length).toBe(32);
      expect(calls[0]![1].length).toBe(32);
    }
  });

  it('checks a PIN the same way', async () => {
    const stored = await hashPin(keys, '739146', PIN_SCRYPT);
    expect(await comparedDuring(async () => expect(await verifyPin(keys, '739146', stored)).toBe(true))).toHaveLength(1);
    expect(await comparedDuring(async () => expect(await verifyPin(keys, '739147', stored)).toBe(false))).toHaveLength(1);
  });

  it('checks a cursor signature with timingSafeEqual; only its length, which is public, is checked before', async () => {
    const scope = { list: 'referrals', companyId: 'a'.repeat(32), userId: 'b'.repeat(32) } as const;
    const cursor = await encodeCursor(keys, scope, 'NOTIF#000001795320000000#x');
    expect(await comparedDuring(async () => expect(await decodeCursor(keys, scope, cursor)).toMatch(/^NOTIF#/))).toHaveLength(1);
    const [version, key, signature] = cursor.split('.') as [string, string, string];
    // Its first character changed: same length, other bytes.
    const tampered = `${version}.${key}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const refused = () => expect(decodeCursor(keys, scope, tampered)).rejects.toMatchObject(BAD_CURSOR);
    expect(await comparedDuring(refused)).toHaveLength(1);
    const shortened = () => expect(decodeCursor(keys, scope, `${version}.${key}.${signature.slice(2)}`)).rejects.toMatchObject(BAD_CURSOR);
    expect(await comparedDuring(shortened)).toHaveLength(0);
  });
});
