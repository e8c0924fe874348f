// Access tokens of an RS256 stage (API contract 3.12, amended: ACCESS_TOKEN_ALG), a stage that moves
// from ES256 to RS256 by a rotation, and the algorithm confusions this service refuses while it
// holds keys of both algorithms.
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, jwtVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import {
  KEY_SET_REFRESH_SECONDS,
  NEW_KEY_LEAD_SECONDS,
  newKeySet,
  publicKeySet,
  rotateKeySet,
  type StoredKeySet,
} from '../../lib/secrets/signing-keys.js';
import { type InProcessService, newCompany, signUp, testService, tokenStatus } from '../helpers.js';

const ISSUER = 'http://localhost:3000';
const rsaStage = testService({ ACCESS_TOKEN_ALG: 'RS256' });
let company: Company;

beforeAll(async () => {
  company = await newCompany(rsaStage);
});

const bearerOf = (authorization: string) => authorization.slice('Token '.length);
const wellKnown = async (target: InProcessService, path: string) =>
  JSON.parse(
    (await target.wellKnown({ rawPath: path, headers: {}, requestContext: { http: { method: 'GET', path } } } as never, {} as never))
      .body ?? '{}',
  );
const jwks = (target: InProcessService) => wellKnown(target, '/.well-known/jwks.json') as Promise<{ keys: any[] }>;
const algorithmsOf = async (target: InProcessService) =>
  (await wellKnown(target, '/.well-known/openid-configuration')).id_token_signing_alg_values_supported;

/** A service over a key set the test rewrites, as signing-key:rotate rewrites the parameters. */
function serviceOverKeySet(initial: StoredKeySet) {
  let stored = initial;
  const service = testService(
    { ACCESS_TOKEN_ALG: 'RS256' },
    { signingKeySources: { private: async () => stored, public: async () => publicKeySet(stored) } },
  );
  return { service, store: (set: StoredKeySet) => (stored = set), current: () => stored };
}

/** A token with these claims, signed by one of the stage's own private keys, as that key signs (typ at+jwt). */
async function signedBy(set: StoredKeySet, kid: string, claims: Record<string, unknown>): Promise<string> {
  const { alg, jwk } = set.keys.find((key) => key.kid === kid)!;
  return new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'at+jwt' }).sign(await importJWK(jwk, alg));
}

describe('an RS256 stage', () => {
  it('signs RS256 access tokens (typ at+jwt, kid) that our routes take and a plain jose verifies against the JWKS', async () => {
    const account = await signUp(rsaStage, company);
    const token = bearerOf(account.authorization);
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'RS256', kid: expect.any(String), typ: 'at+jwt' });
    const { keys } = await jwks(rsaStage);
    expect(keys).toEqual([{ kty: 'RSA', n: expect.stringMatching(/^[\w-]{342}$/), e: 'AQAB', kid: header.kid, alg: 'RS256', use: 'sig' }]);
    expect(await algorithmsOf(rsaStage)).toEqual(['RS256']);
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys }), {
      algorithms: ['RS256'],
      issuer: ISSUER,
      audience: 'wallet',
      currentDate: new Date(rsaStage.clock.now()),
    });
    expect(payload).toMatchObject({ sub: account.userId, cid: company.company_id, amr: ['register'] });
    expect(await tokenStatus(rsaStage, company, account.authorization)).toBe(200);
    expect(await tokenStatus(rsaStage, company, `Bearer ${token}`)).toBe(200);
  });
});

describe('a stage moving from ES256 to RS256 (signing-key:rotate -- --alg RS256)', () => {
  it('lists both keys with their alg, signs RS256 once the RSA key’s time comes, takes ES256 tokens until they expire, then lists RS256 alone', async () => {
    const start = epochSeconds(rsaStage.clock);
    const { service, store, current } = serviceOverKeySet(newKeySet(start - 86_400, 'ES256'));
    const movingCompany = await newCompany(service);
    const [ecKid] = current().keys.map(({ kid }) => kid);
    // ACCESS_TOKEN_ALG=RS256 alone moves nothing: the set's newest key signs.
    const before = await signUp(service, movingCompany);
    expect(decodeProtectedHeader(bearerOf(before.authorization))).toMatchObject({ alg: 'ES256', kid: ecKid });

    const rotation = rotateKeySet(current(), start, service.app.config.accessTokenTtlSeconds, { alg: 'RS256' });
    store(rotation.set);
    const rsaKid = rotation.added.kid;
    service.clock.advance(KEY_SET_REFRESH_SECONDS);
    const both = await jwks(service);
    expect(both.keys.map(({ kid, kty, alg, use }) => ({ kid, kty, alg, use }))).toEqual([
      { kid: ecKid, kty: 'EC', alg: 'ES256', use: 'sig' },
      { kid: rsaKid, kty: 'RSA', alg: 'RS256', use: 'sig' },
    ]);
    expect(await algorithmsOf(service)).toEqual(['ES256', 'RS256']);
    // Published before it signs: the EC key signs until then.
    expect(decodeProtectedHeader(bearerOf((await signUp(service, movingCompany)).authorization)).alg).toBe('ES256');

    service.clock.advance(NEW_KEY_LEAD_SECONDS - KEY_SET_REFRESH_SECONDS);
    const after = await signUp(service, movingCompany);
    expect(decodeProtectedHeader(bearerOf(after.authorization))).toEqual({ alg: 'RS256', kid: rsaKid, typ: 'at+jwt' });
    // Both verify, here and for a verifier holding the JWKS of both.
    expect(await tokenStatus(service, movingCompany, before.authorization)).toBe(200);
    expect(await tokenStatus(service, movingCompany, after.authorization)).toBe(200);
    const verifier = createLocalJWKSet(await jwks(service));
    const options = { algorithms: ['ES256', 'RS256'], issuer: ISSUER, audience: 'wallet', currentDate: new Date(service.clock.now()) };
    const verified = await Promise.all([before, after].map((account) => jwtVerify(bearerOf(account.authorization), verifier, options)));
    expect(verified.map(({ protectedHeader }) => protectedHeader.alg)).toEqual(['ES256', 'RS256']);

    // Once no token the EC key signed can be live, it is gone: RS256 alone, and an ES256 token it signs is refused.
    service.clock.advance(service.app.config.accessTokenTtlSeconds + KEY_SET_REFRESH_SECONDS + 61);
    expect((await jwks(service)).keys.map(({ kid }) => kid)).toEqual([rsaKid]);
    expect(await algorithmsOf(service)).toEqual(['RS256']);
    const now = epochSeconds(service.clock);
    const late = await signedBy(current(), ecKid!, { ...decodeJwt(bearerOf(after.authorization)), iat: now, exp: now + 900 });
    expect(await tokenStatus(service, movingCompany, `Token ${late}`)).toBe(401);
  });
});

describe('algorithm confusion, on a stage holding keys of both algorithms', () => {
  it('refuses a token whose header alg is not its key’s: RS256 over the EC kid, ES256 over the RSA kid, HS256 keyed with a public key', async () => {
    const start = epochSeconds(rsaStage.clock);
    // The RSA key signs since 100 s; the EC key's tokens may still be live.
    const set = rotateKeySet(newKeySet(start - 86_400, 'ES256'), start - 700, 900, { alg: 'RS256' }).set;
    const { service } = serviceOverKeySet(set);
    const mixedCompany = await newCompany(service);
    const account = await signUp(service, mixedCompany);
    const [ec, rsa] = set.keys;
    const claims = decodeJwt(bearerOf(account.authorization));
    const status = (token: string) => tokenStatus(service, mixedCompany, `Token ${token}`);
    // Each key's own tokens are good.
    expect(decodeProtectedHeader(bearerOf(account.authorization)).kid).toBe(rsa!.kid);
    expect(await status(bearerOf(account.authorization))).toBe(200);
    expect(await status(await signedBy(set, ec!.kid, claims))).toBe(200);

    // Signed by an attacker's key of the other algorithm, under each of our kids.
    const attacker = { RS256: await generateKeyPair('RS256'), ES256: await generateKeyPair('ES256') };
    const forged = (alg: 'RS256' | 'ES256', kid: string) =>
      new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'at+jwt' }).sign(attacker[alg].privateKey);
    expect(await status(await forged('RS256', ec!.kid))).toBe(401);
    expect(await status(await forged('ES256', rsa!.kid))).toBe(401);

    // HS256 keyed with what anyone can read of our keys: the JWKS entry, the PEM, the modulus.
    const { keys } = await jwks(service);
    for (const key of [ec!, rsa!]) {
      const published = keys.find(({ kid }) => kid === key.kid);
      const pem = createPublicKey({ key: published as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
      const secrets = [JSON.stringify(published), pem, String(published.n ?? published.x)];
      for (const secret of secrets) {
        const hmac = await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' })
          .sign(new TextEncoder().encode(secret));
        expect(await status(hmac), `HS256 over ${key.alg}'s ${secret.slice(0, 12)}`).toBe(401);
      }
    }
    // And none at all.
    expect(
      await status(
        `${Buffer.from(JSON.stringify({ alg: 'none', kid: rsa!.kid })).toString('base64url')}.${bearerOf(account.authorization).split('.')[1]}.`,
      ),
    ).toBe(401);
    expect(await status(bearerOf(account.authorization))).toBe(200);
  });
});
