// Tokens bound to a key (DPoP, RFC 9449, contract 3.17), in process on DynamoDB Local: a login with
// a proof answers bound tokens; a bound access token works only as `DPoP` with a proof by its key
// over it; a bound refresh token is spent only with such a proof, and a copy without the key ends
// nothing; proofs are fresh (iat or a nonce) and used once; retries with an Idempotency-Key and a
// new proof get the first answer.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import { type Company, createCompany } from '../../lib/companies/companies.js';
import { sessionKey } from '../../lib/store/keys.js';
import { RoundTripCounter } from '../../scripts/bench/round-trips.js';
import { PINS } from '../devices/device-helpers.js';
import { newDeviceKeyPair, signedLoginPin } from '../harness/device-keys.js';
import { type DpopKey, dpopProof, newDpopKey, type ProofOptions } from '../harness/dpop-proofs.js';
import { type Answer, expectFailure, invoke, newCompany, sampleRegistration, testService } from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const REGISTER = '/wallet/v3/auth/user_register';
const REFRESH = '/wallet/v3/auth/token/refresh';
const DEVICES = '/wallet/v3/auth/devices';
const htuOf = (path: string) => `${service.app.config.tokenIssuer}${path}`;
const now = () => epochSeconds(service.clock);

/** A proof by the key for a request to `path` at the service's clock. */
const proofFor = (key: DpopKey, path: string, options: Partial<ProofOptions> = {}) =>
  dpopProof(key, { htm: 'POST', htu: htuOf(path), iat: now(), ...options });

async function register(key: DpopKey | undefined, overrides: Record<string, unknown> = {}, target = company): Promise<Answer> {
  return invoke(service.handlers.userRegister, {
    path: REGISTER,
    headers: { CompanyID: target.company_id, ...(key ? { DPoP: await proofFor(key, REGISTER) } : {}) },
    body: sampleRegistration(overrides),
  });
}

async function boundAccount(key: DpopKey) {
  const answer = await register(key);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const { token, refresh_token: refreshToken, user_id: userId } = answer.body.data;
  return { token: token.token as string, type: token.type as string, refreshToken: refreshToken as string, userId: userId as string };
}

/** GET auth/devices with an Authorization value and, when given, a DPoP header. */
const devices = (authorization: string, proof?: string) =>
  invoke(service.handlers.devices, {
    method: 'GET',
    path: DEVICES,
    headers: { CompanyID: company.company_id, Authorization: authorization, ...(proof ? { DPoP: proof } : {}) },
  });

const getProof = (key: DpopKey, token: string, options: Partial<ProofOptions> = {}) =>
  dpopProof(key, { htm: 'GET', htu: htuOf(DEVICES), iat: now(), accessToken: token, ...options });

async function refresh(refreshToken: string, proof?: string, idempotencyKey?: string): Promise<Answer> {
  return invoke(service.handlers.tokenRefresh, {
    path: REFRESH,
    headers: {
      CompanyID: company.company_id,
      ...(proof ? { DPoP: proof } : {}),
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    },
    body: { refresh_token: refreshToken },
  });
}

async function sessionItem(userId: string, token: string) {
  const { Item } = await service.app.table.client.send(
    new GetCommand({
      TableName: service.app.table.name,
      Key: sessionKey(company.company_id, userId, decodeJwt(token).sid as string),
      ConsistentRead: true,
    }),
  );
  return Item;
}

function expectDpopRefusal(answer: Answer, error = 'invalid_token'): void {
  expectFailure(answer, 401, 4);
  expect(answer.headers['www-authenticate']).toMatch(new RegExp(`^DPoP error="${error}"`));
}

describe('a login with a DPoP proof', () => {
  it('answers tokens bound to the proof’s key: cnf.jkt its RFC 7638 thumbprint, type DPoP, the session keeps it', async () => {
    const key = await newDpopKey();
    const account = await boundAccount(key);
    expect(account.type).toBe('DPoP');
    expect(decodeJwt(account.token).cnf).toEqual({ jkt: key.jkt });
    expect((await sessionItem(account.userId, account.token))?.dpop_jkt).toBe(key.jkt);
  });

  it('without a proof answers unbound tokens as before (type Token, no cnf)', async () => {
    const answer = await register(undefined);
    expect(answer.body.data.token.type).toBe('Token');
    expect(decodeJwt(answer.body.data.token.token).cnf).toBeUndefined();
  });

  it('that also sends device_public_key must prove with that key: another one is 400 code 1 naming DPoP, and nothing is registered', async () => {
    const key = await newDpopKey();
    const device = newDeviceKeyPair();
    const overrides = { ...PINS, device_public_key: device.publicKey };
    const refused = await register(key, overrides);
    expectFailure(refused, 400, 1);
    expect(refused.body.data.errors).toEqual([expect.objectContaining({ field: 'DPoP' })]);
    // The device's own key as the proof's: bound to it.
    const same = await register(key, { ...PINS, device_public_key: key.spki });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(decodeJwt(same.body.data.token.token).cnf).toEqual({ jkt: key.jkt });
  });

  it('is required where the company says require_dpop: a login without a proof is 400 code 1 naming DPoP', async () => {
    const strict = await createCompany(service.app.table, service.clock, `strict ${Date.now()}`, { require_dpop: true });
    const refused = await register(undefined, {}, strict);
    expectFailure(refused, 400, 1);
    expect(refused.body.data.errors).toEqual([expect.objectContaining({ field: 'DPoP' })]);
    expect((await register(await newDpopKey(), {}, strict)).status).toBe(200);
  });

  it('by PIN must be by the device’s own key: another key is 400 code 1, the device’s own binds the session', async () => {
    const deviceKey = await newDpopKey();
    const registered = await register(deviceKey, { ...PINS, device_public_key: deviceKey.spki });
    const account = { token: registered.body.data.token.token as string, userId: registered.body.data.user_id as string };
    const device = {
      privateKey: deviceKey.privateKey,
      deviceKey: (await sessionItem(account.userId, account.token))?.device_key as string,
    };
    const login = async (key: DpopKey) => {
      const body = signedLoginPin(device, company.company_id, PINS.login_pin, { timestamp: now() });
      return invoke(service.handlers.loginPin, {
        path: '/wallet/v3/auth/login_pin',
        headers: { CompanyID: company.company_id, DPoP: await proofFor(key, '/wallet/v3/auth/login_pin') },
        body,
      });
    };
    expectFailure(await login(await newDpopKey()), 400, 1);
    const own = await login(deviceKey);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(decodeJwt(own.body.data.token.token).cnf).toEqual({ jkt: deviceKey.jkt });
  });
});

describe('a bound access token on this service’s routes', () => {
  it('works as `DPoP <token>` with a proof by its key over it, and only so (401 code 4 with WWW-Authenticate: DPoP)', async () => {
    const key = await newDpopKey();
    const { token } = await boundAccount(key);
    expect((await devices(`DPoP ${token}`, await getProof(key, token))).status).toBe(200);
    // Copied: as Bearer or Token, without a proof, with the thief's own key, with a proof over another token.
    expectDpopRefusal(await devices(`Bearer ${token}`));
    expectDpopRefusal(await devices(`Token ${token}`, await getProof(key, token)));
    expectDpopRefusal(await devices(`DPoP ${token}`));
    expectDpopRefusal(await devices(`DPoP ${token}`, await getProof(await newDpopKey(), token)));
    expectDpopRefusal(await devices(`DPoP ${token}`, await getProof(key, `${token}x`)));
  });

  it('refuses a proof made for another method, URL or host (401 code 4, invalid_dpop_proof)', async () => {
    const key = await newDpopKey();
    const { token } = await boundAccount(key);
    expectDpopRefusal(await devices(`DPoP ${token}`, await getProof(key, token, { htm: 'POST' })), 'invalid_dpop_proof');
    expectDpopRefusal(await devices(`DPoP ${token}`, await getProof(key, token, { htu: htuOf(REFRESH) })), 'invalid_dpop_proof');
    expectDpopRefusal(
      await devices(`DPoP ${token}`, await getProof(key, token, { htu: `https://evil.example.com${DEVICES}` })),
      'invalid_dpop_proof',
    );
    // A query and fragment are ignored in the comparison (RFC 9449 section 4.3): the URL is what is compared.
    expect((await devices(`DPoP ${token}`, await getProof(key, token, { htu: `${htuOf(DEVICES)}?a=1#f` }))).status).toBe(200);
  });

  it('takes a proof once per warm function: the same proof again is refused', async () => {
    const key = await newDpopKey();
    const { token } = await boundAccount(key);
    const proof = await getProof(key, token);
    expect((await devices(`DPoP ${token}`, proof)).status).toBe(200);
    expectDpopRefusal(await devices(`DPoP ${token}`, proof), 'invalid_dpop_proof');
  });

  it('refuses a proof too old or made in advance with use_dpop_nonce and a DPoP-Nonce; the retry with that nonce passes', async () => {
    const key = await newDpopKey();
    const { token } = await boundAccount(key);
    const window = service.app.config.dpopProofMaxAgeSeconds;
    for (const iat of [now() - window - 1, now() + 30]) {
      const refused = await devices(`DPoP ${token}`, await getProof(key, token, { iat }));
      expectDpopRefusal(refused, 'use_dpop_nonce');
      const nonce = refused.headers['dpop-nonce'];
      expect(nonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
      // The client's clock may be wrong: the nonce, not the iat, says the proof is fresh.
      expect((await devices(`DPoP ${token}`, await getProof(key, token, { iat, nonce }))).status).toBe(200);
    }
    // A nonce this service did not issue, or issued too long ago, is no nonce.
    const stale = await devices(`DPoP ${token}`, await getProof(key, token, { nonce: 'abc.AAAAAAAAAAAAAAAAAAAAAA' }));
    expectDpopRefusal(stale, 'use_dpop_nonce');
    const nonce = stale.headers['dpop-nonce'] as string;
    service.clock.advance(3 * window);
    expectDpopRefusal(await devices(`DPoP ${token}`, await getProof(key, token, { nonce, iat: now() })), 'use_dpop_nonce');
  });

  it('answers a DPoP header over 8 KB 413 unread', async () => {
    const key = await newDpopKey();
    const { token } = await boundAccount(key);
    expectFailure(await devices(`DPoP ${token}`, 'a'.repeat(8193)), 413, 13);
  });
});

describe('a bound refresh token', () => {
  it('is spent only with a proof by its key; a copy without it (none, another key) is 401 code 4 and the session lives on', async () => {
    const key = await newDpopKey();
    const account = await boundAccount(key);
    expectDpopRefusal(await refresh(account.refreshToken));
    expectDpopRefusal(await refresh(account.refreshToken, await proofFor(await newDpopKey(), REFRESH)));
    expect((await sessionItem(account.userId, account.token))?.ended_reason).toBeUndefined();
    const refreshed = await refresh(account.refreshToken, await proofFor(key, REFRESH));
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.data.token.type).toBe('DPoP');
    expect(decodeJwt(refreshed.body.data.token.token).cnf).toEqual({ jkt: key.jkt });
    // The spent one presented again by a thief without the key, past the grace: refused, and still nothing ended.
    service.clock.advance(service.app.config.refreshReuseGraceSeconds + 1);
    expectDpopRefusal(await refresh(account.refreshToken));
    expect((await sessionItem(account.userId, account.token))?.ended_reason).toBeUndefined();
  });

  it('keeps the session’s key: an unbound session’s refresh with a proof answers unbound tokens', async () => {
    const answer = await register(undefined);
    const refreshed = await refresh(answer.body.data.refresh_token, await proofFor(await newDpopKey(), REFRESH));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.token.type).toBe('Token');
    expect(decodeJwt(refreshed.body.data.token.token).cnf).toBeUndefined();
  });

  it('takes each proof once on the refresh route (in the table); a retry with its Idempotency-Key and a new proof gets the first answer', async () => {
    const key = await newDpopKey();
    const account = await boundAccount(key);
    const proof = await proofFor(key, REFRESH);
    const first = await refresh(account.refreshToken, proof, 'k-1');
    expect(first.status).toBe(200);
    // The same proof again, even with the same key: refused before the key's record is read.
    expectDpopRefusal(await refresh(account.refreshToken, proof, 'k-1'), 'invalid_dpop_proof');
    const retried = await refresh(account.refreshToken, await proofFor(key, REFRESH), 'k-1');
    expect(retried.status).toBe(200);
    expect(retried.body.data.refresh_token).toBe(first.body.data.refresh_token);
    // The retry proven by another key is another request for the key's record.
    expectFailure(await refresh(account.refreshToken, await proofFor(await newDpopKey(), REFRESH), 'k-1'), 409, 20);
  });

  it('whose answer was lost, sent again within the grace with a new proof by its key, gets the same successor (3.12)', async () => {
    const key = await newDpopKey();
    const account = await boundAccount(key);
    const first = await refresh(account.refreshToken, await proofFor(key, REFRESH));
    const again = await refresh(account.refreshToken, await proofFor(key, REFRESH));
    expect(again.status).toBe(200);
    expect(again.body.data.refresh_token).toBe(first.body.data.refresh_token);
  });
});

describe('what a bound call costs in DynamoDB requests', () => {
  it('a bound refresh: one more (the jti’s conditional put); a bound read elsewhere: none more', async () => {
    const key = await newDpopKey();
    const bound = await boundAccount(key);
    const unbound = (await register(undefined)).body.data;
    const counter = new RoundTripCounter();
    counter.attach(service.app.table.client);
    // Warm: the company is cached, the session's use recorded.
    await devices(`DPoP ${bound.token}`, await getProof(key, bound.token));
    await devices(`Token ${unbound.token.token}`);
    counter.take();
    expect((await devices(`Token ${unbound.token.token}`)).status).toBe(200);
    const plainRead = counter.take().requests;
    expect((await devices(`DPoP ${bound.token}`, await getProof(key, bound.token))).status).toBe(200);
    expect(counter.take().requests).toBe(plainRead);
    expect((await refresh(unbound.refresh_token)).status).toBe(200);
    const plainRefresh = counter.take().requests;
    expect((await refresh(bound.refreshToken, await proofFor(key, REFRESH))).status).toBe(200);
    expect(counter.take().requests).toBe(plainRefresh + 1);
  });
});

describe('with DPOP_NONCE=1', () => {
  const strict = testService({ DPOP_NONCE: '1' });
  let strictCompany: Company;
  beforeAll(async () => {
    strictCompany = await newCompany(strict);
  });

  it('asks every proof for a nonce, hands the next one with every answer, and takes each proof exactly once', async () => {
    const key = await newDpopKey();
    const htu = `${strict.app.config.tokenIssuer}${REGISTER}`;
    const call = async (proof: string) =>
      invoke(strict.handlers.userRegister, {
        path: REGISTER,
        headers: { CompanyID: strictCompany.company_id, DPoP: proof },
        body: sampleRegistration(),
      });
    const challenged = await call(await dpopProof(key, { htm: 'POST', htu }));
    expectDpopRefusal(challenged, 'use_dpop_nonce');
    const nonce = challenged.headers['dpop-nonce'] as string;
    const proof = await dpopProof(key, { htm: 'POST', htu, nonce });
    const answered = await call(proof);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.headers['dpop-nonce']).toEqual(expect.any(String));
    expectDpopRefusal(await call(proof), 'invalid_dpop_proof');
  });
});
