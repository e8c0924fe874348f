// Trusted devices and PIN login over HTTP through serverless-offline (API contract 3.6): binding
// at registration, PIN login, the list, removal, and the races the contract names, each answer
// checked against the API document.
import { describe, expect, it } from 'vitest';
import { newDeviceKeyPair, newNonce, signedLoginPin } from '../harness/device-keys.js';
import { expectFiveComparedFiveRefused, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function call(method: 'GET' | 'POST', path: string, body?: unknown, authorization?: string) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method,
    headers: {
      CompanyID: service.company.company_id,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(authorization ? { Authorization: authorization } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method, path, ...answer });
  return answer;
}

const LOGIN_PIN = '2580';

/** A customer registered over HTTP with a new device bound. */
async function customerWithDevice() {
  const keys = newDeviceKeyPair();
  const registered = await call(
    'POST',
    '/wallet/v3/auth/user_register',
    sampleRegistration({ login_pin: LOGIN_PIN, device_public_key: keys.publicKey, device_id: 'phone-1' }),
  );
  expect(registered.status, service.server.output()).toBe(200);
  const deviceKey = registered.body.data.device_key as string;
  expect(deviceKey).toMatch(/^[0-9a-f]{32}$/);
  return { keys, deviceKey, token: `Token ${registered.body.data.token.token}`, userId: registered.body.data.user_id as string };
}

const pinLogin = (device: { keys: { privateKey: any }; deviceKey: string }, pin: string, nonce = newNonce()) =>
  call(
    'POST',
    '/wallet/v3/auth/login_pin',
    signedLoginPin({ privateKey: device.keys.privateKey, deviceKey: device.deviceKey }, service.company.company_id, pin, {
      timestamp: Math.floor(Date.now() / 1000),
      nonce,
    }),
  );
/** A strong session (contract 3.15): a PIN login now on the device registration bound, so settled. */
async function strongToken(device: { keys: { privateKey: any }; deviceKey: string }): Promise<string> {
  const login = await pinLogin(device, LOGIN_PIN);
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return `Token ${login.body.data.token.token}`;
}
const works = async (authorization: string) => (await call('GET', '/wallet/v3/auth/devices', undefined, authorization)).status === 200;

describe('trusted devices over HTTP', () => {
  it('binds at registration, logs in by PIN, lists the devices, refuses a bad signature and a wrong PIN, and removes the device', async () => {
    const device = await customerWithDevice();
    const login = await pinLogin(device, LOGIN_PIN);
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.data.user_id).toBe(device.userId);
    const pinSession = `Token ${login.body.data.token.token}`;

    const listed = await call('GET', '/wallet/v3/auth/devices', undefined, pinSession);
    expect(listed.body.data.devices).toEqual([expect.objectContaining({ device_key: device.deviceKey, device_id: 'phone-1', current: 1 })]);

    const stranger = { keys: newDeviceKeyPair(), deviceKey: device.deviceKey };
    const forged = await pinLogin(stranger, LOGIN_PIN);
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ success: 0, error: [4], data: { message: 'UNAUTHORIZED' } });
    const wrong = await pinLogin(device, '1357');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ success: 0, error: [17], data: { message: 'BAD_REQUEST', attempts_left: 4 } });

    const removed = await call('POST', '/wallet/v3/auth/devices/remove', { device_key: device.deviceKey }, pinSession);
    expect(removed.body).toEqual({ success: 1, error: [], data: { message: 'Device removed', revoked: 2 } });
    expect(await works(pinSession)).toBe(false);
    expect(await works(device.token)).toBe(false);
    expect((await pinLogin(device, LOGIN_PIN)).status).toBe(401);
  });

  it('counts 10 wrong PINs sent at once exactly and keeps the lock after the 5th', async () => {
    const device = await customerWithDevice();
    const answers = await Promise.all(Array.from({ length: 10 }, () => pinLogin(device, '1357')));
    expectFiveComparedFiveRefused(answers);
    const locked = await pinLogin(device, LOGIN_PIN);
    expect(locked.status).toBe(400);
    expect(locked.body.error).toEqual([18]);
  });

  it('accepts a nonce once when the same request arrives twice at once', async () => {
    const device = await customerWithDevice();
    const body = signedLoginPin(
      { privateKey: device.keys.privateKey, deviceKey: device.deviceKey },
      service.company.company_id,
      LOGIN_PIN,
      {
        timestamp: Math.floor(Date.now() / 1000),
      },
    );
    const answers = await Promise.all([1, 2].map(() => call('POST', '/wallet/v3/auth/login_pin', body)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
  });

  it('leaves no live session on a device removed while a PIN login races the removal', async () => {
    for (let round = 0; round < 3; round++) {
      const device = await customerWithDevice();
      // Removal from a strong session takes effect at once; from the registration's it would wait (3.15).
      const strong = await strongToken(device);
      const [logins, removal] = await Promise.all([
        Promise.all([1, 2].map(() => pinLogin(device, LOGIN_PIN))),
        call('POST', '/wallet/v3/auth/devices/remove', { device_key: device.deviceKey }, strong),
      ]);
      expect(removal.body).toEqual({ success: 1, error: [], data: { message: 'Device removed', revoked: expect.any(Number) } });
      for (const login of logins) {
        if (login.status === 200) expect(await works(`Token ${login.body.data.token.token}`)).toBe(false);
        else expect(login.body.error).toEqual([4]);
      }
    }
  });

  it('changes and resets a PIN; the old PIN never works once the change has answered, with PIN logins racing it', async () => {
    const device = await customerWithDevice();
    // A strong session changes the PIN at once (contract 3.15); the registration's would hold it.
    const strong = await strongToken(device);
    let answered = false;
    const change = call('POST', '/wallet/v3/auth/change_pin', { pin_type: 1, current_pin: LOGIN_PIN, new_pin: '8052' }, strong).finally(
      () => {
        answered = true;
      },
    );
    // Four logins in flight at every moment until the change has answered: the race covers the
    // whole change, and the server's workers stay few (a login every 20 ms piled up dozens of cold
    // workers on a loaded machine, slowing the change they raced).
    const logins: Awaited<ReturnType<typeof pinLogin>>[] = [];
    const racing = Array.from({ length: 4 }, async () => {
      while (!answered) logins.push(await pinLogin(device, LOGIN_PIN));
    });
    const changed = await change;
    await Promise.all(racing);
    expect(changed.body).toEqual({ success: 1, error: [], data: { message: 'PIN changed', revoked: expect.any(Number) } });
    for (const login of logins) {
      if (login.status === 200) expect(await works(`Token ${login.body.data.token.token}`)).toBe(false);
      // 16: every try held by logins still in flight (busy, retry).
      else expect([4, 16, 17, 18]).toContain(login.body.error[0]);
    }
    expect((await pinLogin(device, LOGIN_PIN)).status).toBe(400);
    // The change ended every other session: the registration's reset gets 401, not a held reset.
    const refused = await call('POST', '/wallet/v3/auth/reset_pin', { pin_type: 1, new_pin: '5207' }, device.token);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual([4]);
  });
});
