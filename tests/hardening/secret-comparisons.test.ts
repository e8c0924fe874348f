// Secrets are compared in constant time where a client's guess meets a stored value in our
// code: password and PIN hashes, and cursor signatures. (One-time codes are compared by
// DynamoDB as keyed HMACs, tokens are looked up by their SHA-256: no comparison in our code.)
import { describe, expect, it, vi } from 'vitest';

const comparisons = vi.hoisted(() => ({ calls: [] as [Buffer, Buffer][] }));

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    comparisons.calls.push([Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)]);
    return crypto.timingSafeEqual(a, b);
  };
  return { ...crypto, default: { ...crypto, timingSafeEqual }, timingSafeEqual };
});

const { hashPassword, hashPin, verifyPassword, verifyPin } = await import('../../lib/secrets/hashing.js');
const { decodeCursor, encodeCursor } = await import('../../lib/referrals/referral-cursor.js');

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
    const stored = await hashPin('739146');
    expect(await comparedDuring(async () => expect(await verifyPin('739146', stored)).toBe(true))).toHaveLength(1);
    expect(await comparedDuring(async () => expect(await verifyPin('739147', stored)).toBe(false))).toHaveLength(1);
  });

  it('checks a cursor signature with timingSafeEqual; only its length, which is public, is checked before', async () => {
    const companyId = 'a'.repeat(32);
    const userId = 'b'.repeat(32);
    const cursor = encodeCursor(companyId, userId, 'NOTIF#000001795320000000#x');
    expect(await comparedDuring(() => expect(decodeCursor(companyId, userId, cursor)).toMatch(/^NOTIF#/))).toHaveLength(1);
    const [key, signature] = cursor.split('.') as [string, string];
    const tampered = `${key}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await comparedDuring(() => decodeCursor(companyId, userId, tampered))).toHaveLength(1);
    expect(() => decodeCursor(companyId, userId, tampered)).toThrow();
    expect(await comparedDuring(() => decodeCursor(companyId, userId, `${key}.${signature.slice(2)}`))).toHaveLength(0);
  });
});
