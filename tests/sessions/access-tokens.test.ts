// Access tokens (API contract 3.12): ES256 JWTs over a live session, what this service refuses
// (another company's, altered, forged, expired, an unknown kid), opaque tokens from before them,
// and the JWKS they verify against, through a key rotation.
import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, jwtVerify, SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
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
import { sessionKey } from '../../lib/store/keys.js';
import { expectFailure, invoke, logIn, newCompany, signUp, testService, tokenStatus } from '../helpers.js';

const service = testService();
let company: Company;
let otherCompany: Company;

beforeAll(async () => {
  [company, otherCompany] = await Promise.all([newCompany(service), newCompany(service)]);
});

afterEach(() => service.clock.reset());

const bearerOf = (authorization: string) => authorization.slice('Token '.length);
const jwks = async (target = service) =>
  JSON.parse((await target.wellKnown(wellKnownEvent('/.well-known/jwks.json'), {} as never)).body ?? '{}') as { keys: any[] };
const wellKnownEvent = (path: string) => ({ rawPath: path, headers: {}, requestContext: { http: { method: 'GET', path } } }) as never;

/** The token with one claim changed and its signature kept: what a client tampering with it sends. */
function altered(token: string, change: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...change };
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('the access token a login answers', () => {
  it('is an ES256 JWT with kid and the claims of 3.12 and RFC 9068, with a refresh token and expires_in 900', async () => {
    const account = await signUp(service, company);
    const token = bearerOf(account.authorization);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect((await jwks()).keys.map((key) => key.kid)).toContain(header.kid);
    const claims = decodeJwt(token);
    expect(claims).toEqual({
      iss: 'http://localhost:3000',
      aud: 'wallet',
      sub: account.userId,
      cid: company.company_id,
      sid: expect.stringMatching(/^[0-9a-f]{32}$/),
      utp: 2,
      amr: ['register'],
      acr: 'sms',
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.stringMatching(/^[\w-]{22}$/),
      auth_time: claims.iat,
    });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(account.refreshToken).toMatch(/^[0-9a-f]{32}\.[0-9a-f]{32}\.1\.1\.[\w-]{43}\.[\w-]{43}$/);
    // An OTP login's session says so.
    const login = await logIn(service, company, account);
    expect(decodeJwt(bearerOf(login)).amr).toEqual(['otp']);
    // An SMS code alone makes an SMS-strength session (contract 3.15).
    expect(decodeJwt(bearerOf(login)).acr).toBe('sms');
    expect(decodeJwt(bearerOf(login)).sid).not.toBe(claims.sid);
    expect(decodeJwt(bearerOf(login)).jti).not.toBe(claims.jti);
  });

  it('has one spelling: the signature with its last character’s unused bits flipped is refused', async () => {
    const account = await signUp(service, company);
    const token = bearerOf(account.authorization);
    // An ES256 signature is 64 bytes: its 86th base64url character carries 2 bits of it and 4 unused ones.
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${token.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(Buffer.from(respelled.split('.')[2]!, 'base64url')).toEqual(Buffer.from(token.split('.')[2]!, 'base64url'));
    expect(await tokenStatus(service, company, `Token ${token}`)).toBe(200);
    expect(await tokenStatus(service, company, `Token ${respelled}`)).toBe(401);
  });

  it('is stored as nothing but its session: the session item holds the refresh token only as a hash', async () => {
    const account = await signUp(service, company);
    const { sid } = decodeJwt(bearerOf(account.authorization)) as { sid: string };
    const items = await service.app.table.client.send(
      new GetCommand({
        TableName: service.app.table.name,
        Key: sessionKey(company.company_id, account.userId, sid),
        ConsistentRead: true,
      }),
    );
    const stored = JSON.stringify(items.Item);
    expect(items.Item).toMatchObject({ refresh_gen: 1, refresh_hash: createHash('sha256').update(account.refreshToken).digest('hex') });
    expect(stored).not.toContain(account.refreshToken.split('.')[4]);
    expect(stored).not.toContain(bearerOf(account.authorization).split('.')[2]);
  });

  it('works as "Token <jwt>" and as "Bearer <jwt>"', async () => {
    const account = await signUp(service, company);
    expect(await tokenStatus(service, company, account.authorization)).toBe(200);
    expect(await tokenStatus(service, company, `Bearer ${bearerOf(account.authorization)}`)).toBe(200);
    expect(await tokenStatus(service, company, `bearer ${bearerOf(account.authorization)}`)).toBe(200);
  });

  it('is refused (401, code 4) for another company, altered, forged, expired, or signed by an unknown kid', async () => {
    const account = await signUp(service, company);
    const token = bearerOf(account.authorization);
    const status = (value: string, target = company) => tokenStatus(service, target, `Token ${value}`);
    // Another company's CompanyID with this token.
    expect(await status(token, otherCompany)).toBe(401);
    // Claims changed, signature kept: another user, another company, a longer life.
    const other = await signUp(service, company);
    expect(await status(altered(token, { sub: other.userId }))).toBe(401);
    expect(await status(altered(token, { cid: otherCompany.company_id }), otherCompany)).toBe(401);
    expect(await status(altered(token, { exp: epochSeconds(service.clock) + 86_400 }))).toBe(401);
    // Signed by a key of the attacker's, with our kid, and with a kid we never had.
    const { privateKey } = await generateKeyPair('ES256');
    const claims = decodeJwt(token);
    const kid = decodeProtectedHeader(token).kid!;
    const forge = (header: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...header }).sign(privateKey);
    expect(await status(await forge({ kid }))).toBe(401);
    expect(await status(await forge({ kid: 'not-a-kid-of-ours' }))).toBe(401);
    expect(await status(await forge({}))).toBe(401);
    // alg "none", and HS256 keyed with the public key's text.
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url')}.${token.split('.')[1]}.`;
    expect(await status(unsigned)).toBe(401);
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid })
      .sign(new TextEncoder().encode(JSON.stringify((await jwks()).keys[0])));
    expect(await status(hmac)).toBe(401);
    // Still good: none of the above was the token's fault.
    expect(await status(token)).toBe(200);
    // Expired: 900 s later, while its session lives on.
    service.clock.advance(901);
    expect(await status(token)).toBe(401);
    expect(await tokenStatus(service, company, await logIn(service, company, account))).toBe(200);
  });

  it('ends at once on our routes when its session ends: logout, then 401 though it has not expired', async () => {
    const account = await signUp(service, company);
    const logout = await invoke(service.handlers.logout, {
      path: '/wallet/v3/auth/logout',
      headers: { CompanyID: company.company_id, Authorization: account.authorization },
    });
    expect(logout.status).toBe(200);
    expect(decodeJwt(bearerOf(account.authorization)).exp! * 1000).toBeGreaterThan(service.clock.now());
    expectFailure(
      await invoke(service.handlers.devices, {
        method: 'GET',
        path: '/wallet/v3/auth/devices',
        headers: { CompanyID: company.company_id, Authorization: account.authorization },
      }),
      401,
      4,
    );
  });
});

describe('opaque tokens issued before signed access tokens', () => {
  it('keep working until their session ends, then 401', async () => {
    const account = await signUp(service, company);
    // A session as the service stored one before 3.12: keyed by the SHA-256 of "<user id>.<256 bits>".
    const opaque = `${account.userId}.${randomBytes(32).toString('base64url')}`;
    const now = epochSeconds(service.clock);
    await service.app.table.client.send(
      new PutCommand({
        TableName: service.app.table.name,
        Item: {
          ...sessionKey(company.company_id, account.userId, createHash('sha256').update(opaque).digest('hex')),
          user_type: 2,
          began: 'otp',
          created_at: now,
          last_used_at: now,
          expires_at: now + 3600,
        },
      }),
    );
    expect(await tokenStatus(service, company, `Token ${opaque}`)).toBe(200);
    expect(await tokenStatus(service, company, `Bearer ${opaque}`)).toBe(200);
    service.clock.advance(3601);
    expect(await tokenStatus(service, company, `Token ${opaque}`)).toBe(401);
  });
});

describe('the discovery document and the JWKS', () => {
  it('name the issuer and its keys, cacheable, without a CompanyID', async () => {
    const discovery = await service.wellKnown(wellKnownEvent('/.well-known/openid-configuration'), {} as never);
    expect(discovery.statusCode).toBe(200);
    expect(discovery.headers).toMatchObject({ 'cache-control': 'public, max-age=300', 'content-type': 'application/json' });
    expect(JSON.parse(discovery.body ?? '')).toMatchObject({
      issuer: 'http://localhost:3000',
      jwks_uri: 'http://localhost:3000/.well-known/jwks.json',
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const { keys } = await jwks();
    expect(keys).toEqual([
      { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), alg: 'ES256', use: 'sig' },
    ]);
    // The public half only.
    expect(JSON.stringify(keys)).not.toContain('"d"');
  });

  it('verify a token with a plain JOSE library and nothing of ours', async () => {
    const account = await signUp(service, company);
    const token = bearerOf(account.authorization);
    const { keys } = await jwks();
    const key = await importJWK(keys.find((jwk) => jwk.kid === decodeProtectedHeader(token).kid)!, 'ES256');
    const { payload } = await jwtVerify(token, key, {
      issuer: 'http://localhost:3000',
      audience: 'wallet',
      currentDate: new Date(service.clock.now()),
    });
    expect(payload).toMatchObject({ sub: account.userId, cid: company.company_id });
  });
});

describe('a rotation of the signing key', () => {
  /** A service over a key set the test rewrites, as signing-key:rotate rewrites the parameters. */
  function serviceOverKeySet(initial: StoredKeySet) {
    let stored = initial;
    const rotating = testService({}, { signingKeySources: { private: async () => stored, public: async () => publicKeySet(stored) } });
    return { rotating, store: (set: StoredKeySet) => (stored = set), current: () => stored };
  }

  it('publishes the new key first, signs with it once its time comes, and drops the old key once no token it signed can be live', async () => {
    const start = epochSeconds(service.clock);
    const { rotating, store, current } = serviceOverKeySet(newKeySet(start - 86_400));
    const rotatingCompany = await newCompany(rotating);
    const [oldKid] = current().keys.map(({ kid }) => kid);
    const before = await signUp(rotating, rotatingCompany);
    expect(decodeProtectedHeader(bearerOf(before.authorization)).kid).toBe(oldKid);

    const rotation = rotateKeySet(current(), start, rotating.app.config.accessTokenTtlSeconds);
    store(rotation.set);
    expect(rotation.added.signs_from).toBe(start + NEW_KEY_LEAD_SECONDS);
    // Containers read the set again within KEY_SET_REFRESH_SECONDS: then the JWKS lists both, and the old key still signs.
    rotating.clock.advance(KEY_SET_REFRESH_SECONDS);
    expect((await jwks(rotating)).keys.map(({ kid }) => kid)).toEqual([oldKid, rotation.added.kid]);
    expect(decodeProtectedHeader(bearerOf((await signUp(rotating, rotatingCompany)).authorization)).kid).toBe(oldKid);

    // Its time has come: new tokens are signed with the new key; the old key's tokens still verify.
    rotating.clock.advance(NEW_KEY_LEAD_SECONDS - KEY_SET_REFRESH_SECONDS);
    const after = await signUp(rotating, rotatingCompany);
    expect(decodeProtectedHeader(bearerOf(after.authorization)).kid).toBe(rotation.added.kid);
    expect(await tokenStatus(rotating, rotatingCompany, before.authorization)).toBe(200);

    // A token signed by the old key is live until every such token has expired; then the old key is
    // gone from the JWKS, and a token it signed is refused though its session lives.
    const oldKeyPrivate = current().keys.find(({ kid }) => kid === oldKid)!.jwk;
    const signedByOld = await new SignJWT(decodeJwt(bearerOf(after.authorization)))
      .setProtectedHeader({ alg: 'ES256', kid: oldKid!, typ: 'JWT' })
      .setIssuedAt(epochSeconds(rotating.clock))
      .setExpirationTime(epochSeconds(rotating.clock) + 900)
      .sign(await importJWK(oldKeyPrivate, 'ES256'));
    expect(await tokenStatus(rotating, rotatingCompany, `Token ${signedByOld}`)).toBe(200);
    rotating.clock.advance(rotating.app.config.accessTokenTtlSeconds + KEY_SET_REFRESH_SECONDS + 61);
    expect((await jwks(rotating)).keys.map(({ kid }) => kid)).toEqual([rotation.added.kid]);
    const reSigned = await new SignJWT(decodeJwt(bearerOf(after.authorization)))
      .setProtectedHeader({ alg: 'ES256', kid: oldKid!, typ: 'JWT' })
      .setIssuedAt(epochSeconds(rotating.clock))
      .setExpirationTime(epochSeconds(rotating.clock) + 900)
      .sign(await importJWK(oldKeyPrivate, 'ES256'));
    expect(await tokenStatus(rotating, rotatingCompany, `Token ${reSigned}`)).toBe(401);
    // A later rotation drops it from the stored set too.
    const next = rotateKeySet(current(), epochSeconds(rotating.clock), rotating.app.config.accessTokenTtlSeconds);
    expect(next.dropped).toEqual([oldKid]);
  });
});
