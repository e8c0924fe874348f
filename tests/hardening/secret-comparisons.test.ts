// Secrets are compared in constant time where a client's guess meets a stored value in our
// code: password and PIN hashes, and cursor signatures. (One-time codes are compared by
// DynamoDB as keyed HMACs, tokens are looked up by their SHA-256: no comparison in our code.)
import { describe, expect, it, vi } from 'vitest';
import { decodeCursor, encodeCursor } from '../../lib/referrals/referral-cursor.js';
import { hashPassword, hashPin, verifyPassword, verifyPin } from '../../lib/secrets/hashing.js';
import { configuredSecret, ServerKeys } from '../../lib/secrets/server-keys.js';

const comparisons = vi.hoisted(() => ({ calls: [] as [Buffer, Buffer][] }));

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    comparisons.calls.push([Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)]);
    return crypto.timingSafeEqual(a, b);
  };
  return { ...crypto, default: { ...crypto, timingSafeEqual }, timingSafeEqual };
});

// vi.mock is hoisted above the imports: the modules above see the counting timingSafeEqual.
const keys = new ServerKeys(configuredSecret('5e'.repeat(32)));

function comparedDuring(action: () => unknown): Promise<[Buffer, Buffer][]> {
  comparisons.calls = [];
  return new Promise((resolve) => resolve(action())).then(
    () => comparisons.calls,
    () => comparisons.calls,
  );
}

describe('constant-time comparison of secrets', () => {
  it('checks a password against its scrypt hash with timingSafeEqual, right or wrong', async () => {
    const stored = await hashPassword('correct horse battery');
    const right = await comparedDuring(async () => expect(await verifyPassword('correct horse battery', stored)).toBe(true));
    const wrong = await comparedDuring(async () => expect(await verifyPassword('correct horse battery!', stored)).toBe(false));
    for (const calls of [right, wrong]) {
      expect(calls).toHaveLength(1);
      expect(calls[0]![0].length).toBe(32);
      expect(calls[0]![1].length).toBe(32);
    }
  });

  it('checks a PIN the same way', async () => {
    const stored = await hashPin(keys, '739146');
    expect(await comparedDuring(async () => expect(await verifyPin(keys, '739146', stored)).toBe(true))).toHaveLength(1);
    expect(await comparedDuring(async () => expect(await verifyPin(keys, '739147', stored)).toBe(false))).toHaveLength(1);
  });

  it('checks a cursor signature with timingSafeEqual; only its length, which is public, is checked before', async () => {
    const companyId = 'a'.repeat(32);
    const userId = 'b'.repeat(32);
    const cursor = await encodeCursor(keys, companyId, userId, 'NOTIF#000001795320000000#x');
    expect(await comparedDuring(async () => expect(await decodeCursor(keys, companyId, userId, cursor)).toMatch(/^NOTIF#/))).toHaveLength(
      1,
    );
    const [version, key, signature] = cursor.split('.') as [string, string, string];
    const tampered = `${version}.${key}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await comparedDuring(() => decodeCursor(keys, companyId, userId, tampered))).toHaveLength(1);
    await expect(decodeCursor(keys, companyId, userId, tampered)).rejects.toThrow();
    expect(await comparedDuring(() => decodeCursor(keys, companyId, userId, `${version}.${key}.${signature.slice(2)}`))).toHaveLength(0);
  });
});
