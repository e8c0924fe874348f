import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier, type TokenVerifier, type WalletAuthError } from '../../src/index.js';
import { answer, COMPANY, scriptedFetch } from './fake-fetch.js';

// The services' verifier against a JWKS of the test's own, served by a fake fetch: which tokens it
// accepts, which it refuses and why, when it fetches the key set again, and the sessions it was
// told have ended.

const ISSUER = 'https://auth.example.test';
const JWKS_PATH = '/.well-known/jwks.json';

type SigningKey = { kid: string; alg: 'ES256' | 'RS256'; privateKey: CryptoKey; jwk: JWK };

async function signingKey(kid: string, alg: 'ES256' | 'RS256' = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A JWKS endpoint of the keys `published` holds, and the verifier that reads it through a fake fetch. */
function verifierOver(published: SigningKey[], options: { refetchCooldownMs?: number; endedSessionMemorySeconds?: number } = {}) {
  const jwks = scriptedFetch(({ path }) => (path === JWKS_PATH ? answer(200, { keys: published.map((key) => key.jwk) }) : answer(404, {})));
  const verifier = createTokenVerifier({
    issuer: ISSUER,
    audience: 'wallet',
    companyId: COMPANY.toUpperCase(),
    fetch: jwks.fetch,
    ...options,
  });
  return { verifier, fetches: () => jwks.seen.length };
}

/** An access token as the service signs one (contract 3.12), with claims and header overridden as given. */
function token(key: SigningKey, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const standard = { iss: ISSUER, aud: 'wallet', sub: 'a'.repeat(32), iat: now, exp: now + 900 };
  return new SignJWT({ ...standard, cid: COMPANY, sid: 'b'.repeat(32), utp: 2, amr: ['otp'], ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header })
    .sign(key.privateKey);
}

const reasonOf = async (verifier: TokenVerifier, jwt: string) =>
  ((await verifier.verify(jwt).catch((error: unknown) => error)) as WalletAuthError).data?.reason;

describe('createTokenVerifier against a local JWKS', () => {
  it('accepts ES256 and RS256 tokens with one fetch of the key set for all of them, and says whom they speak for', async () => {
    const [ec, rsa] = [await signingKey('ec'), await signingKey('rsa', 'RS256')];
    const { verifier, fetches } = verifierOver([ec, rsa]);
    for (const key of [ec, rsa, ec, rsa]) {
      expect(await verifier.verify(await token(key))).toMatchObject({
        userId: 'a'.repeat(32),
        companyId: COMPANY,
        sessionId: 'b'.repeat(32),
        userType: 2,
        amr: ['otp'],
      });
    }
    expect(fetches()).toBe(1);
  });

  it('refuses, with 401 code 4 and the reason, a token of another company, audience or issuer, expired, of another type, or lacking a claim', async () => {
    const key = await signingKey('ec');
    const { verifier } = verifierOver([key]);
    const past = Math.floor(Date.now() / 1000) - 3600;
    const error = (await verifier.verify(await token(key, { cid: 'c'.repeat(32) })).catch((thrown: unknown) => thrown)) as WalletAuthError;
    expect(error).toMatchObject({ status: 401, codes: [4], name: 'UNAUTHORIZED', data: { reason: 'company' } });
    expect(await reasonOf(verifier, await token(key, { aud: 'payments' }))).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
    expect(await reasonOf(verifier, await token(key, { iss: 'https://elsewhere.test' }))).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
    expect(await reasonOf(verifier, await token(key, { exp: past }))).toBe('ERR_JWT_EXPIRED');
    expect(await reasonOf(verifier, await token(key, {}, { typ: 'JWT' }))).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
    expect(await reasonOf(verifier, await token(key, { sid: undefined }))).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it('refuses a changed claim, a token signed by a key not in the set, and the alg tricks: none, HS256 keyed with the public key', async () => {
    const key = await signingKey('ec');
    const { verifier } = verifierOver([key]);
    const [header, , signature] = (await token(key)).split('.') as [string, string, string];
    const widened = Buffer.from(JSON.stringify({ sub: 'a'.repeat(32), cid: COMPANY, sid: 'b'.repeat(32), utp: 1 })).toString('base64url');
    expect(await reasonOf(verifier, `${header}.${widened}.${signature}`)).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const stranger = { ...(await signingKey('ec')), kid: 'ec' };
    expect(await reasonOf(verifier, await token(stranger))).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'ec', typ: 'at+jwt' })).toString('base64url')}.${widened}.`;
    expect(await reasonOf(verifier, none)).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
    const hmac = new SignJWT({ cid: COMPANY, sid: 'b'.repeat(32) })
      .setProtectedHeader({ alg: 'HS256', kid: 'ec', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience('wallet')
      .setSubject('a'.repeat(32))
      .setExpirationTime('15m')
      .sign(new TextEncoder().encode(JSON.stringify(key.jwk)));
    expect(await reasonOf(verifier, await hmac)).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
  });

  it('fetches the key set again for an unknown kid (a key published since), but not within the cooldown of the last fetch', async () => {
    const first = await signingKey('first');
    const published = [first];
    const { verifier, fetches } = verifierOver(published, { refetchCooldownMs: 0 });
    await verifier.verify(await token(first));
    const rotated = await signingKey('rotated');
    published.push(rotated);
    await expect(verifier.verify(await token(rotated))).resolves.toMatchObject({ sessionId: 'b'.repeat(32) });
    expect(fetches()).toBe(2);

    // The default cooldown (30 s): a kid the set does not hold is refused without a second fetch.
    const { verifier: cooling, fetches: coolingFetches } = verifierOver([first]);
    await cooling.verify(await token(first));
    expect(await reasonOf(cooling, await token(await signingKey('unknown')))).toBe('ERR_JWKS_NO_MATCHING_KEY');
    expect(coolingFetches()).toBe(1);
  });

  it('refuses a session it was told has ended, of its company only, until it has forgotten it', async () => {
    const key = await signingKey('ec');
    const { verifier } = verifierOver([key]);
    const jwt = await token(key);
    await verifier.verify(jwt);
    // Another company's event names no session of this verifier's company: nothing changes.
    verifier.sessionEnded({ detail: { company_id: 'c'.repeat(32), sid: 'b'.repeat(32) } });
    await expect(verifier.verify(jwt)).resolves.toBeDefined();
    verifier.sessionEnded({ detail: { company_id: COMPANY, sid: 'b'.repeat(32) } });
    expect(await reasonOf(verifier, jwt)).toBe('session_ended');
    // Another session is accepted.
    await expect(verifier.verify(await token(key, { sid: 'd'.repeat(32) }))).resolves.toBeDefined();

    // A verifier that remembers an ended session for no time forgets it at its next verify.
    const { verifier: forgetful } = verifierOver([key], { endedSessionMemorySeconds: 0 });
    forgetful.sessionEnded({ sid: 'b'.repeat(32) });
    await expect(forgetful.verify(jwt)).resolves.toBeDefined();
  });
});
