import { describe, expect, it } from 'vitest';
import { memoryKeyStore, memoryStorage, WalletAuthError } from '../src/index.js';
import { recordingFetch, useClientService } from './service.js';

// The app's part of the client against the service over HTTP (serverless-offline): retries with
// the same key, one refresh for many calls, PIN login with a WebCrypto key, errors by name.

const service = useClientService();
const REGISTER = '/wallet/v3/auth/user_register';
const LOGIN_PHONE = '/wallet/v3/auth/login_phone';
const REFRESH = '/wallet/v3/auth/token/refresh';

const e164 = (registration: { dial_code?: unknown; phone_number: string }) =>
  `${registration.dial_code ?? '+1'}${registration.phone_number}`;

/** A customer signed in by code on a client of its own, with this device's key bound. */
async function signedInWithDevice() {
  const client = service.client({ deviceKeys: memoryKeyStore() });
  const registration = service.registration();
  await client.auth.register(registration as never);
  const phone = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2 as const };
  await client.auth.sendCode({ ...phone, otp_type: 1 });
  await client.auth.verifyCode({ ...phone, otp_type: 1, otp: service.lastCode(e164(registration)) }, { bindDevice: true });
  return { client, registration };
}

describe('client.request', () => {
  it('sends a POST whose answer was lost again with the same Idempotency-Key: one registration, one text', async () => {
    const recorder = recordingFetch((url, call) => call === 1 && (url.endsWith(REGISTER) || url.endsWith(LOGIN_PHONE)));
    const client = service.client({ fetch: recorder.fetch });
    const registration = service.registration();

    const registered = await client.auth.register(registration as never);
    expect(registered.user_id).toMatch(/^[0-9a-f]{32}$/);
    await client.auth.sendCode({ dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 });

    for (const path of [REGISTER, LOGIN_PHONE]) {
      const sent = recorder.calls.filter((call) => call.url.endsWith(path));
      expect(sent).toHaveLength(2);
      expect(sent[0]?.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(sent[1]?.headers['Idempotency-Key']).toBe(sent[0]?.headers['Idempotency-Key']);
      expect(sent[0]?.headers.CompanyID).toBe(service.companyId);
    }
    expect(service.textsTo(e164(registration))).toBe(1);
    // The registration's answer was kept: the client is signed in as that user.
    expect(await client.auth.userId()).toBe(registered.user_id);
    expect((await client.account.profile()).user.user_id).toBe(registered.user_id);
    // One registration: the same phone again is a duplicate.
    const again = await service
      .client()
      .auth.register(registration as never)
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(WalletAuthError);
    expect((again as WalletAuthError).name).toBe('ALREADY_REGISTERED');
  });

  it('makes one refresh for ten calls at once whose access token expired', async () => {
    const storage = memoryStorage();
    const recorder = recordingFetch();
    const client = service.client({ storage, fetch: recorder.fetch });
    await client.auth.register(service.registration() as never);
    const key = `wallet-auth:${service.companyId}:session`;
    const session = JSON.parse(String(await storage.get(key)));
    await storage.set(key, JSON.stringify({ ...session, expiresAt: Date.now() - 1000 }));

    const profiles = await Promise.all(Array.from({ length: 10 }, () => client.account.profile()));
    expect(new Set(profiles.map((profile) => profile.user.user_id)).size).toBe(1);
    expect(recorder.calls.filter((call) => call.url.endsWith(REFRESH))).toHaveLength(1);
    const renewed = JSON.parse(String(await storage.get(key)));
    expect(renewed.refreshToken).not.toBe(session.refreshToken);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now());
  });

  it('makes one refresh for ten calls at once whose access token the service refused, and sends each again', async () => {
    const storage = memoryStorage();
    const recorder = recordingFetch();
    const client = service.client({ storage, fetch: recorder.fetch });
    await client.auth.register(service.registration() as never);
    const key = `wallet-auth:${service.companyId}:session`;
    const session = JSON.parse(String(await storage.get(key)));
    const [header, claims] = String(session.accessToken).split('.');
    await storage.set(key, JSON.stringify({ ...session, accessToken: `${header}.${claims}.${'A'.repeat(86)}` }));

    const devices = await Promise.all(Array.from({ length: 10 }, () => client.devices.list()));
    expect(devices.every((answer) => Array.isArray(answer.devices))).toBe(true);
    expect(recorder.calls.filter((call) => call.url.endsWith(REFRESH))).toHaveLength(1);
    // Each call twice: refused (401), then with the new token; a 503 a loaded machine answers is sent again too.
    const listed = recorder.calls.filter((call) => call.url.endsWith('/wallet/v3/auth/devices'));
    expect(listed.filter((call) => call.status !== 503)).toHaveLength(20);
    expect(listed.filter((call) => call.status === 401)).toHaveLength(10);
  });

  it('keeps a session answered through request(), and forgets it, saying so, when a logout ends it', async () => {
    let ended = 0;
    const client = service.client({ onSessionEnd: () => ended++ });
    // A session that came through request(), not a helper, is kept all the same.
    await client.request('POST', REGISTER, service.registration());
    expect(await client.auth.signedIn()).toBe(true);
    await client.auth.logout();
    expect(ended).toBe(1);
    expect(await client.auth.signedIn()).toBe(false);
    const refused = await client.account.profile().catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401, codes: [4], name: 'UNAUTHORIZED' });
  });
});

describe('PIN login with a WebCrypto device key', () => {
  it('binds a non-extractable P-256 key at OTP login and logs in with the PIN, signing the text of 3.6', async () => {
    const { client, registration } = await signedInWithDevice();
    expect(await client.auth.hasBoundDevice()).toBe(true);
    const fresh = await client.auth.loginWithPin(String(registration.login_pin));
    expect(fresh.token.token.split('.')).toHaveLength(3);
    const { devices } = await client.devices.list();
    expect(devices).toHaveLength(1);
    expect(devices[0]?.current).toBe(1);
  });

  it('answers a lock as WalletAuthError PIN_LOCKED after PIN_INVALID with the attempts left', async () => {
    const { client } = await signedInWithDevice();
    const wrong = async () => (await client.auth.loginWithPin('000000').catch((error: unknown) => error)) as WalletAuthError;
    const first = await wrong();
    expect(first).toBeInstanceOf(WalletAuthError);
    expect(first).toMatchObject({ status: 400, codes: [17], name: 'PIN_INVALID', data: { attempts_left: 4 } });
    for (let attempt = 2; attempt <= 5; attempt++) await wrong();
    const locked = await wrong();
    expect(locked).toMatchObject({ status: 400, codes: [18], name: 'PIN_LOCKED' });
    expect(locked.is('PIN_LOCKED')).toBe(true);
  });
});

describe('tokens bound to the device key (DPoP, contract 3.17)', () => {
  it('binds its session to the device key, proves it on every call, retry and refresh, and answers a nonce challenge once', async () => {
    let dateSkewMs = 0;
    const recorder = recordingFetch((url, call) => call === 1 && url.endsWith(REFRESH));
    // The device's clock ten minutes off the service's, as the Date header tells it: its proofs' iat is then out of the window.
    const skewed: typeof fetch = async (input, init) => {
      const response = await recorder.fetch(input, init);
      if (!dateSkewMs) return response;
      const headers = new Headers(response.headers);
      headers.set('date', new Date(Date.now() + dateSkewMs).toUTCString());
      return new Response(await response.text(), { status: response.status, headers });
    };
    const client = service.client({ fetch: skewed, deviceKeys: memoryKeyStore() });
    const registered = await client.auth.register(service.registration() as never);
    expect((registered as { token: { type: string } }).token.type).toBe('DPoP');
    expect((await client.account.profile()).user.user_id).toBe(registered.user_id);
    // The refresh whose first answer is lost: sent again with the same key and a new proof, answered the same pair.
    await client.auth.refreshTokens();
    const refreshes = recorder.calls.filter((call) => call.url.endsWith(REFRESH));
    expect(refreshes).toHaveLength(2);
    expect(refreshes[1]?.headers['Idempotency-Key']).toBe(refreshes[0]?.headers['Idempotency-Key']);
    expect(refreshes[1]?.headers.DPoP).not.toBe(refreshes[0]?.headers.DPoP);
    expect(refreshes.map((call) => call.status)).toEqual([200, 200]);
    dateSkewMs = -600_000;
    await client.account.profile();
    const before = recorder.calls.length;
    expect((await client.account.profile()).user.user_id).toBe(registered.user_id);
    const challenged = recorder.calls.slice(before);
    expect(challenged.map((call) => call.status)).toEqual([401, 200]);
    // Every call sent a proof, and every call with the bound token sent it as DPoP.
    for (const call of recorder.calls) {
      expect(call.headers.DPoP).toMatch(/^ey/);
      if (call.headers.Authorization) expect(call.headers.Authorization).toMatch(/^DPoP /);
    }
  });
});
