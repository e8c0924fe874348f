// DPoP proofs as lib/sessions/dpop-proofs.ts verifies them (RFC 9449, contract 3.17), without a
// table: RFC 9449's own example proof and thumbprint, each way a proof can be wrong, and a property
// test of hostile proofs (fast-check): whatever a client sends, a proof is accepted only when it is
// a valid one for the request, and every refusal is 401 code 4 with the DPoP challenge, never a 500.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { base64url, type JWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.js';
import { newKeyPair } from '../../lib/secrets/key-pairs.js';
import { accessTokenHash, expectedHtus, type ProofTarget, verifyProof } from '../../lib/sessions/dpop-proofs.js';
import { dpopProof, newDpopKey } from '../harness/dpop-proofs.js';

const NOW = 1_764_081_000;

function appAt(seconds: number, settings: { dpopNonce?: boolean; tokenIssuer?: string } = {}) {
  const key = Buffer.alloc(32, 7);
  return {
    keys: { current: async () => ({ version: 1, key }) },
    clock: { now: () => seconds * 1000 },
    config: {
      dpopProofMaxAgeSeconds: 60,
      dpopNonce: settings.dpopNonce ?? false,
      tokenIssuer: settings.tokenIssuer ?? 'https://auth.example.com',
      dpopHtuFromHost: false,
    },
  } as never;
}

const TARGET: ProofTarget = { companyId: 'c'.repeat(32), method: 'POST', htus: ['https://auth.example.com/wallet/v3/auth/token/refresh'] };
const HTU = TARGET.htus[0] as string;

async function refusalOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  const refusal = error as AppError;
  expect([refusal.status, refusal.code]).toEqual([401, 4]);
  expect(refusal.headers?.['www-authenticate']).toMatch(/^DPoP error="/);
  return refusal;
}

describe('RFC 9449’s examples', () => {
  // Figure 2 (section 4.1): a proof for POST https://server.example.com/token, iat 1562262616; its key's thumbprint (figure 9).
  const RFC_PROOF =
    'eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.' +
    'eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.' +
    '2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg';
  const RFC_JKT = '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I';
  const rfcTarget = { companyId: TARGET.companyId, method: 'POST', htus: ['https://server.example.com/token'] };

  it('verifies the example proof at its time, with the thumbprint the RFC publishes', async () => {
    const proof = await verifyProof(appAt(1_562_262_616), RFC_PROOF, rfcTarget);
    expect(proof).toMatchObject({ jkt: RFC_JKT, jti: '-BwC3ESc6acc2lTc', iat: 1_562_262_616 });
  });

  it('refuses the same example a window later, or for another URL', async () => {
    expect((await refusalOf(verifyProof(appAt(1_562_262_616 + 61), RFC_PROOF, rfcTarget))).headers?.['dpop-nonce']).toBeTruthy();
    await refusalOf(verifyProof(appAt(1_562_262_616), RFC_PROOF, { ...rfcTarget, htus: ['https://server.example.com/other'] }));
  });

  it('computes ath as section 7.1’s example does', () => {
    // Section 7.1: the access token "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU" and its ath.
    expect(accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
  });
});

describe('a proof', () => {
  it('is accepted when valid, with its key’s thumbprint', async () => {
    const key = await newDpopKey();
    const proof = await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW });
    expect((await verifyProof(appAt(NOW), proof, TARGET)).jkt).toBe(key.jkt);
  });

  it.each([
    ['typ JWT', { header: { typ: 'JWT' } }],
    ['no typ', { header: { typ: undefined } }],
    ['htm of another method', { htm: 'GET' }],
    ['htu of another host', { htu: 'https://evil.example.com/wallet/v3/auth/token/refresh' }],
    ['htu of another path', { htu: 'https://auth.example.com/wallet/v3/auth/login_pin' }],
    ['htu that is no URL', { htu: 'not a url' }],
    ['iat too old', { iat: NOW - 61 }],
    ['iat in the future (made in advance)', { iat: NOW + 60 }],
    ['iat a string', { claims: { iat: String(NOW) } }],
    ['no jti', { claims: { jti: undefined } }],
    ['a short jti', { jti: 'a' }],
    ['a nonce not issued here', { nonce: 'x.yyyyyyyyyyyyyyyyyyyyyy' }],
  ])('is refused with %s', async (_name, options) => {
    const key = await newDpopKey();
    await refusalOf(verifyProof(appAt(NOW), await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW, ...options }), TARGET));
  });

  it('is refused with a private key in its jwk', async () => {
    const key = await newDpopKey();
    const { privateKey } = newKeyPair({ type: 'ec', namedCurve: 'prime256v1' });
    const privateJwk = privateKey.export({ format: 'jwk' }) as JWK;
    await refusalOf(
      verifyProof(appAt(NOW), await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW, header: { jwk: privateJwk } }), TARGET),
    );
  });

  it('is refused signed with HMAC, with alg none, with RS256, or by a key other than its jwk', async () => {
    const key = await newDpopKey();
    const claims = { htm: 'POST', htu: HTU, iat: NOW, jti: randomBytes(12).toString('base64url') };
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: base64url.encode(randomBytes(32)) } } as never)
      .sign(randomBytes(32));
    await refusalOf(verifyProof(appAt(NOW), hmac, TARGET));
    const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }))}.${base64url.encode(JSON.stringify(claims))}.`;
    await refusalOf(verifyProof(appAt(NOW), unsigned, TARGET));
    const rsa = newKeyPair({ type: 'rsa', modulusLength: 2048 });
    const rs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'dpop+jwt', jwk: rsa.publicKey.export({ format: 'jwk' }) } as never)
      .sign(rsa.privateKey);
    await refusalOf(verifyProof(appAt(NOW), rs256, TARGET));
    const other = await newDpopKey();
    await refusalOf(verifyProof(appAt(NOW), await dpopProof(key, { ...claims, header: { jwk: other.publicJwk } }), TARGET));
  });

  it('without a nonce is refused where the stage asks for them, and the nonce it is answered makes it pass', async () => {
    const key = await newDpopKey();
    const app = appAt(NOW, { dpopNonce: true });
    const refused = await refusalOf(verifyProof(app, await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW }), TARGET));
    expect(refused.headers?.['www-authenticate']).toMatch(/^DPoP error="use_dpop_nonce"/);
    const nonce = refused.headers?.['dpop-nonce'] as string;
    await expect(verifyProof(app, await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW, nonce }), TARGET)).resolves.toBeDefined();
    // A nonce of another company is no nonce here.
    await refusalOf(
      verifyProof(app, await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW, nonce }), { ...TARGET, companyId: 'd'.repeat(32) }),
    );
  });
});

describe('the URL a proof names', () => {
  it('is TOKEN_ISSUER’s origin and the path (or its base and the path), and the request’s host only locally', () => {
    expect(expectedHtus({ tokenIssuer: 'https://auth.example.com', dpopHtuFromHost: false }, '/p', 'evil.example.com')).toEqual([
      'https://auth.example.com/p',
    ]);
    expect(expectedHtus({ tokenIssuer: 'https://api.example.com/auth', dpopHtuFromHost: false }, '/p', undefined)).toEqual([
      'https://api.example.com/p',
      'https://api.example.com/auth/p',
    ]);
    expect(expectedHtus({ tokenIssuer: 'http://localhost:3000', dpopHtuFromHost: true }, '/p', '127.0.0.1:4001')).toContain(
      'http://127.0.0.1:4001/p',
    );
  });
});

describe('a proof spelled another way', () => {
  it('is refused when a part is not canonical base64url: the unused bits of its signature’s last character changed', async () => {
    const key = await newDpopKey();
    const valid = await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW, jti: 'spelled-jti-000' });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // A 64-byte signature is 86 characters: the last carries 2 bits of it and 4 unused ones.
    const last = alphabet.indexOf(valid.at(-1)!);
    const respelled = `${valid.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(respelled.split('.')[2]!, 'base64url')).toEqual(Buffer.from(valid.split('.')[2]!, 'base64url'));
    await expect(verifyProof(appAt(NOW), valid, TARGET)).resolves.toMatchObject({ jkt: key.jkt });
    await refusalOf(verifyProof(appAt(NOW), respelled, TARGET));
  });
});

describe('hostile proofs (property)', () => {
  it('a valid proof with any one part changed or any text at all is refused 401 code 4, never accepted, never thrown otherwise', async () => {
    const key = await newDpopKey();
    const valid = await dpopProof(key, { htm: 'POST', htu: HTU, iat: NOW, jti: 'property-jti-000' });
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const part = fc.constantFrom(0, 1, 2);
    const mutated = fc.oneof(
      // Any text.
      fc.string({ maxLength: 400 }),
      // Any JSON for the header or the payload, with the rest kept.
      fc.tuple(part, fc.json({ maxDepth: 3 })).map(([at, json]) => {
        const parts = [header, payload, signature];
        parts[at] = base64url.encode(json);
        return parts.join('.');
      }),
      // One character of the valid proof changed.
      fc
        .tuple(fc.nat(valid.length - 1), fc.constantFrom(...'AZaz09-_.=+/ '))
        .map(([at, char]) => (valid[at] === char ? `${valid}x` : `${valid.slice(0, at)}${char}${valid.slice(at + 1)}`)),
    );
    await fc.assert(
      fc.asyncProperty(mutated, async (proof) => {
        if (proof === valid) return;
        await refusalOf(verifyProof(appAt(NOW), proof, TARGET));
      }),
      { numRuns: 300 },
    );
  });

  it('hostile claims signed by the key are accepted only when htm, htu, iat and jti are all right', async () => {
    const key = await newDpopKey();
    const claims = fc.record({
      htm: fc.oneof(fc.constant('POST'), fc.string({ maxLength: 10 })),
      htu: fc.oneof(fc.constant(HTU), fc.webUrl(), fc.string({ maxLength: 30 })),
      iat: fc.oneof(fc.integer({ min: NOW - 200, max: NOW + 200 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(NOW)),
      jti: fc.oneof(fc.string({ maxLength: 300 }), fc.constant(undefined)),
      typ: fc.constantFrom('dpop+jwt', 'JWT', 'at+jwt'),
    });
    await fc.assert(
      fc.asyncProperty(claims, async ({ htm, htu, iat, jti, typ }) => {
        const proof = await dpopProof(key, { htm, htu, iat, jti: jti ?? 'x', header: { typ }, claims: { iat, jti } });
        const right =
          htm === 'POST' &&
          htu === HTU &&
          typeof iat === 'number' &&
          Number.isFinite(iat) &&
          NOW - iat <= 60 &&
          NOW - iat >= -5 &&
          typeof jti === 'string' &&
          jti.length >= 8 &&
          jti.length <= 256 &&
          typ === 'dpop+jwt';
        if (right) await expect(verifyProof(appAt(NOW), proof, TARGET)).resolves.toMatchObject({ jkt: key.jkt });
        else await refusalOf(verifyProof(appAt(NOW), proof, TARGET));
      }),
      { numRuns: 300 },
    );
  });
});
