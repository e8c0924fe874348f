// The signing key sets (lib/secrets/signing-keys.ts; API contract 3.12, amended): ES256 and RS256
// keys side by side in one set, each used only with its own algorithm, and the sets stored before
// RS256 existed (entries without `alg`) still read, as ES256.
import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock.js';
import { newKeyPair } from '../../lib/secrets/key-pairs.js';
import {
  type ExpectedAlgorithm,
  newKeySet,
  parseKeySet,
  publicKeySet,
  rotateKeySet,
  SigningKeys,
  type StoredKeySet,
} from '../../lib/secrets/signing-keys.js';

const now = Math.floor(Date.now() / 1000);
const TTL = 900;

/** A set moving from ES256 to RS256: the RSA key signs since 100 s ago, the EC key's tokens may still be live. */
function movingSet(): StoredKeySet {
  return rotateKeySet(newKeySet(now - 86_400, 'ES256'), now - 700, TTL, { alg: 'RS256' }).set;
}

/** A container's keys over a set, as createApp builds them. */
const keysOver = (set: StoredKeySet, expected?: ExpectedAlgorithm) =>
  new SigningKeys({ private: async () => set, public: async () => publicKeySet(set) }, TTL, systemClock, expected);

const refusal = /no valid ES256 \(P-256\) or RS256 \(RSA 2048\) key/;

describe('a key set', () => {
  it('makes ES256 keys on P-256 and RS256 keys on RSA 2048 with e = 65537, each named by its RFC 7638 thumbprint', async () => {
    const [ec] = newKeySet(now, 'ES256').keys;
    const [rsa] = newKeySet(now, 'RS256').keys;
    expect(ec).toMatchObject({ alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
    expect(rsa).toMatchObject({ alg: 'RS256', jwk: { kty: 'RSA', e: 'AQAB' } });
    expect(Buffer.from(rsa!.jwk.n!, 'base64url').length * 8).toBe(2048);
    // jose's thumbprint, computed from the public members alone: a verifier can check the kid.
    expect(ec!.kid).toBe(await calculateJwkThumbprint(ec!.jwk, 'sha256'));
    expect(rsa!.kid).toBe(await calculateJwkThumbprint(rsa!.jwk, 'sha256'));
    // The private set keeps what signing needs; the public set only the public members.
    expect(Object.keys(rsa!.jwk).sort()).toEqual(['d', 'dp', 'dq', 'e', 'kty', 'n', 'p', 'q', 'qi']);
    const published = publicKeySet({ keys: [ec!, rsa!] }).keys.map(({ jwk }) => Object.keys(jwk).sort());
    expect(published).toEqual([
      ['crv', 'kty', 'x', 'y'],
      ['e', 'kty', 'n'],
    ]);
  });

  it('reads an entry stored without alg (every set from before RS256) as ES256', () => {
    const [stored] = newKeySet(now, 'ES256').keys;
    const { alg: _alg, ...unmarked } = stored!;
    expect(JSON.stringify(unmarked)).not.toContain('"alg"');
    const read = parseKeySet(JSON.stringify({ keys: [unmarked] }), 'a stored parameter');
    expect(read.keys).toEqual([{ ...stored, alg: 'ES256' }]);
  });

  it('refuses an entry whose key is not of its alg, an alg it does not sign with, and an RSA key under 2048 bits', () => {
    const [ec] = newKeySet(now, 'ES256').keys;
    const [rsa] = newKeySet(now, 'RS256').keys;
    const { alg: _alg, ...unmarkedRsa } = rsa!;
    const short = newKeyPair({ type: 'rsa', modulusLength: 1024 }).privateKey.export({ format: 'jwk' }) as JWK;
    const refused: Record<string, unknown>[] = [
      { ...ec, alg: 'RS256' },
      { ...rsa, alg: 'ES256' },
      // Without alg an entry is ES256, so an RSA key must say it is RS256.
      unmarkedRsa,
      { ...ec, alg: 'HS256' },
      { ...rsa, alg: 'PS256' },
      { ...rsa, jwk: short },
    ];
    for (const entry of refused) {
      expect(() => parseKeySet(JSON.stringify({ keys: [entry] }), 'a stored parameter'), JSON.stringify(entry.alg)).toThrow(refusal);
    }
    // A good set of both reads whole.
    expect(parseKeySet(JSON.stringify({ keys: [ec, rsa] }), 'a stored parameter').keys.map(({ alg }) => alg)).toEqual(['ES256', 'RS256']);
  });
});

describe('a container’s keys over a set of both algorithms', () => {
  it('verify with a kid only when the token’s alg is that key’s own', async () => {
    const set = movingSet();
    const [ec, rsa] = set.keys;
    const keys = keysOver(set);
    expect((await keys.verifyingKey(ec!.kid, 'ES256'))?.asymmetricKeyType).toBe('ec');
    expect((await keys.verifyingKey(rsa!.kid, 'RS256'))?.asymmetricKeyType).toBe('rsa');
    const confused: [string, string | undefined][] = [
      [ec!.kid, 'RS256'],
      [ec!.kid, 'HS256'],
      [ec!.kid, 'none'],
      [ec!.kid, undefined],
      [rsa!.kid, 'ES256'],
      [rsa!.kid, 'HS256'],
      [rsa!.kid, 'PS256'],
    ];
    for (const [kid, alg] of confused) expect(await keys.verifyingKey(kid, alg), `${alg} over ${kid}`).toBeUndefined();
  });

  it('sign with the newest key whatever its alg, and publish both, each with its alg and use', async () => {
    const set = movingSet();
    const [ec, rsa] = set.keys;
    const keys = keysOver(set);
    expect(await keys.signingKey()).toMatchObject({ kid: rsa!.kid, alg: 'RS256' });
    expect(await keys.published()).toEqual([
      { kty: 'EC', crv: 'P-256', x: ec!.jwk.x, y: ec!.jwk.y, kid: ec!.kid, alg: 'ES256', use: 'sig' },
      { kty: 'RSA', n: rsa!.jwk.n, e: 'AQAB', kid: rsa!.kid, alg: 'RS256', use: 'sig' },
    ]);
  });

  it('warn once, at a container’s first signing, when the key that signs is not of ACCESS_TOKEN_ALG, and keep signing with it', async () => {
    const warnings: { message: unknown; fields: unknown }[] = [];
    const logger = { warn: (message: unknown, ...fields: unknown[]) => void warnings.push({ message, fields: fields[0] }) };
    const set = newKeySet(now - 60, 'ES256');
    const keys = keysOver(set, { algorithm: 'RS256', logger });
    expect(await keys.signingKey()).toMatchObject({ kid: set.keys[0]!.kid, alg: 'ES256' });
    await keys.signingKey();
    expect(warnings).toEqual([
      {
        message: expect.stringContaining('not of ACCESS_TOKEN_ALG'),
        fields: { kid: set.keys[0]!.kid, alg: 'ES256', access_token_alg: 'RS256' },
      },
    ]);
    // A key of the stage's own algorithm: nothing to say.
    await keysOver(set, { algorithm: 'ES256', logger }).signingKey();
    expect(warnings).toHaveLength(1);
  });
});
