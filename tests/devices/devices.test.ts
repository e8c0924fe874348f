// Bound devices (API contract 3.6), against DynamoDB Local: binding at registration and OTP
// login, the same key bound again, the most devices per user, the list and the removal, and a
// removal racing a PIN login.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { createBoundSession, deviceBindingOf } from '../../lib/devices/device-binding.js';
import { getDevice } from '../../lib/store/device-store.js';
import { USER_DEVICE_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { querySessions } from '../../lib/store/session-store.js';
import { getUser } from '../../lib/store/user-store.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { expectFailure, invoke, newCompany, sampleRegistration, signUp, testService } from '../helpers.js';
import {
  type Device,
  otpLogin,
  PINS,
  pinLogin,
  sessionOf,
  noticeEvents as sharedNoticeEvents,
  signUpWithDevice,
  strongSession,
  tokenWorks,
} from './device-helpers.js';

const service = testService();
const twoDevices = testService({ MAX_DEVICES_PER_USER: '2' });
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => {
  service.clock.reset();
  twoDevices.clock.reset();
});

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const listDevices = (authorization: string, on = service) =>
  invoke(on.handlers.devices, { method: 'GET', path: '/wallet/v3/auth/devices', headers: headers(authorization) });
const removeDevice = (authorization: string, deviceKey: unknown, on = service) =>
  invoke(on.handlers.devicesRemove, {
    path: '/wallet/v3/auth/devices/remove',
    headers: headers(authorization),
    body: { device_key: deviceKey },
  });

const noticeEvents = async (userId: string) => await sharedNoticeEvents(service, company, userId);

/** How many devices a user's list holds, read from the table. */
async function deviceItems(on: typeof service, companyId: string, userId: string): Promise<number> {
  return (await queryPartitionPrefix(on.app.table, userKey(companyId, userId).pk, USER_DEVICE_PREFIX)).length;
}

describe('binding a device', () => {
  it('at registration: the answer carries device_key, the same for the same key and user, another for another user', async () => {
    const keys = newDeviceKeyPair();
    const registration = { ...PINS, device_public_key: keys.publicKey, device_type: 2, device_id: 'pixel', device_unique_id: 'u-1' };
    const answer = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: company.company_id },
      body: sampleRegistration(registration),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const deviceKey = answer.body.data.device_key;
    expect(deviceKey).toMatch(/^[0-9a-f]{32}$/);
    const authorization = `Token ${answer.body.data.token.token}`;
    const listed = await listDevices(authorization);
    expect(listed.body.data.devices).toEqual([
      {
        device_key: deviceKey,
        device_type: 2,
        device_id: 'pixel',
        device_unique_id: 'u-1',
        created_date: expect.any(Number),
        last_used_date: expect.any(Number),
        // Bound at registration: settled at once (contract 3.15).
        settled: 1,
        probation_ends_at: null,
        current: 1,
      },
    ]);
    // The same key for another user is another binding.
    const other = await signUp(service, company, { device_public_key: keys.publicKey });
    const otherSession = await sessionOf(service, company, other, other.authorization);
    expect(otherSession?.device_key).toMatch(/^[0-9a-f]{32}$/);
    expect(otherSession?.device_key).not.toBe(deviceKey);
  });

  it('at an OTP login: the same key again keeps its device_key and takes the new labels; a new key adds a device with a notice', async () => {
    const { account, device } = await signUpWithDevice(service, company, { device_id: 'old' });
    const again = await otpLogin(service, company, account, { device_public_key: device.publicKey, device_id: 'new', device_type: 3 });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data).toMatchObject({ message: 'Logged in successfully', user_id: account.userId, device_key: device.deviceKey });
    const againSession = `Token ${again.body.data.token.token}`;
    expect(await sessionOf(service, company, account, againSession)).toMatchObject({ began: 'otp', device_key: device.deviceKey });
    const second = newDeviceKeyPair();
    const added = await otpLogin(service, company, account, { device_public_key: second.publicKey });
    const listed = (await listDevices(againSession)).body.data.devices;
    expect(listed).toHaveLength(2);
    // One NEW_DEVICE notice: for the new key, none for the same key again (nor for the registration's).
    expect(await noticeEvents(account.userId)).toEqual([2]);
    // Most recently used first; the presenting session's device is current.
    expect(listed[0]).toMatchObject({ device_key: added.body.data.device_key, device_id: null, current: 0 });
    expect(listed[1]).toMatchObject({ device_key: device.deviceKey, device_id: 'new', device_type: 3, current: 1 });
    // An OTP login without a key binds nothing.
    const plain = await otpLogin(service, company, account);
    expect(plain.body.data.device_key).toBeUndefined();
    expect(await sessionOf(service, company, account, `Token ${plain.body.data.token.token}`)).toMatchObject({ began: 'otp' });
  });

  it('refuses a key that is not P-256 with 400, code 1, on device_public_key, and a key with another otp_type', async () => {
    const refused = [
      newDeviceKeyPair('secp384r1').publicKey,
      newDeviceKeyPair('secp256k1').publicKey,
      'not a key',
      Buffer.from('not a key either').toString('base64'),
    ];
    for (const key of refused) {
      const answer = await invoke(service.handlers.userRegister, {
        path: '/r',
        headers: { CompanyID: company.company_id },
        body: sampleRegistration({ device_public_key: key }),
      });
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors).toEqual([expect.objectContaining({ code: 1, field: 'device_public_key' })]);
    }
    const account = await signUp(service, company);
    const target = { dial_code: '+1', phone_number: account.registration.phone_number, user_type: 2, otp_type: 2, otp: '123456' };
    const answer = await invoke(service.handlers.verifyOtp, {
      path: '/v',
      headers: { CompanyID: company.company_id },
      body: { ...target, device_public_key: newDeviceKeyPair().publicKey },
    });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors[0].field).toBe('device_public_key');
  });

  it('keeps at most MAX_DEVICES_PER_USER and never removes a settled device: one more removes the oldest on probation, with its sessions; with every slot settled the binding is refused (22) and the login succeeds', async () => {
    const on = twoDevices;
    const own = await newCompany(on);
    const { account, device: first } = await signUpWithDevice(on, own);
    const bind = async () => {
      const keys = newDeviceKeyPair();
      const answer = await otpLogin(on, own, account, { device_public_key: keys.publicKey });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return { device: { ...keys, deviceKey: answer.body.data.device_key } as Device, token: `Token ${answer.body.data.token.token}` };
    };
    const second = await bind();
    // The first, settled, is used long before the second: still it stays, and the second, on probation, goes.
    on.clock.advance(5);
    const third = await bind();
    const kept = (
      await invoke(on.handlers.devices, { method: 'GET', path: '/d', headers: { CompanyID: own.company_id, Authorization: third.token } })
    ).body.data.devices;
    expect(kept.map((device: { device_key: string }) => device.device_key).sort()).toEqual(
      [third.device.deviceKey, first.deviceKey].sort(),
    );
    expect(await tokenWorks(on, own, second.token)).toBe(false);
    expectFailure(await pinLogin(on, own, second.device, PINS.login_pin), 401, 4);
    expect((await pinLogin(on, own, first, PINS.login_pin)).status).toBe(200);
    // Two new devices bound at once still leave two (the later binding reads again and removes another).
    const [fourth, fifth] = [newDeviceKeyPair(), newDeviceKeyPair()];
    // One phone has one live code: two logins at once are two sessions granted side by side.
    const target = { companyId: own.company_id, userId: account.userId, userType: 2 };
    const origin = { sourceIp: '127.0.0.1', userAgent: undefined };
    await Promise.all(
      [fourth, fifth].map((keys) =>
        createBoundSession(
          on.app,
          origin,
          target,
          deviceBindingOf(own.company_id, account.userId, { device_public_key: keys.publicKey })!,
          { began: 'otp', acr: 'sms' },
          {},
        ),
      ),
    );
    expect(await deviceItems(on, own.company_id, account.userId)).toBe(2);
    expect((await getUser(on.app.table, own.company_id, account.userId, true))?.device_count).toBe(2);
    // Past its probation with no strong login meanwhile, the one on probation settles: every slot settled.
    on.clock.advance(on.app.config.credentialProbationHours * 3600 + 1);
    const refused = await otpLogin(on, own, account, { device_public_key: newDeviceKeyPair().publicKey });
    expect(refused.status).toBe(200);
    expect(refused.body.data.device_refused).toEqual({ code: 22, detail: expect.any(String) });
    expect(refused.body.data.device_key).toBeUndefined();
    expect(await tokenWorks(on, own, `Token ${refused.body.data.token.token}`)).toBe(true);
    expect(await deviceItems(on, own.company_id, account.userId)).toBe(2);
  });

  it('keeps at most PROBATION_DEVICES_MAX on probation: a fourth removes the oldest on probation, never the settled one', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const bound: string[] = [];
    let latest = '';
    for (let i = 0; i < 4; i++) {
      // An hour on before the fourth: a phone's sends of an hour are spent.
      if (i === 3) service.clock.advance(3601);
      const answer = await otpLogin(service, company, account, { device_public_key: newDeviceKeyPair().publicKey });
      bound.push(answer.body.data.device_key);
      latest = `Token ${answer.body.data.token.token}`;
    }
    const listed = (await listDevices(latest)).body.data.devices as { device_key: string; settled: number }[];
    expect(listed.map((item) => item.device_key).sort()).toEqual([device.deviceKey, ...bound.slice(1)].sort());
    expect(listed.filter((item) => item.settled === 0)).toHaveLength(3);
  });
});

describe('devices/remove', () => {
  it('removes a device on probation at once from any session, and a settled one at once from a fresh strong session: the binding and every session bound to it, answering how many', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const other = newDeviceKeyPair();
    const onProbation = await otpLogin(service, company, account, { device_public_key: other.publicKey });
    const probationToken = `Token ${onProbation.body.data.token.token}`;
    const answer = await removeDevice(account.authorization, onProbation.body.data.device_key);
    expect(answer.body).toEqual({ success: 1, error: [], data: { message: 'Device removed', revoked: 1 } });
    expect(await tokenWorks(service, company, probationToken)).toBe(false);
    expectFailure(await pinLogin(service, company, { ...other, deviceKey: onProbation.body.data.device_key }, PINS.login_pin), 401, 4);
    // The settled one, from a strong session on it: its sessions end, the registration's and the strong one itself.
    const strong = await strongSession(service, company, device);
    const settled = await removeDevice(strong, device.deviceKey);
    expect(settled.body).toEqual({ success: 1, error: [], data: { message: 'Device removed', revoked: 2 } });
    expect(await tokenWorks(service, company, account.authorization)).toBe(false);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 401, 4);
    // Removed already: 404.
    const kept = `Token ${(await otpLogin(service, company, account)).body.data.token.token}`;
    expectFailure(await removeDevice(kept, device.deviceKey), 404, 6);
  });

  it('holds the removal of a settled device asked from an SMS-strength session: it works until the hold ends, any session cancels it, and once due its next use or listing removes it', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const otp = `Token ${(await otpLogin(service, company, account)).body.data.token.token}`;
    const held = await removeDevice(otp, device.deviceKey);
    expect(held.body.data).toMatchObject({ message: 'Device removal pending', pending: 1 });
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
    // The owner cancels it from the device's own strong session.
    const strong = await strongSession(service, company, device);
    const cancel = await invoke(service.handlers.userChangesCancel, {
      path: '/c',
      headers: headers(strong),
      body: { change_id: held.body.data.change_id },
    });
    expect(cancel.body.data).toEqual({ message: 'Device removal cancelled', kind: 'device_remove' });
    // Asked again and left: once due, the device's next PIN login finds it removed.
    const again = await removeDevice(otp, device.deviceKey);
    expect(again.body.data.pending).toBe(1);
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600 + 1);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 401, 4);
    expect(await getDevice(service.app.table, company.company_id, device.deviceKey)).toBeUndefined();
  });

  it('answers a stale strong session’s removal of a settled device 403 code 5 with needs strong_fresh', async () => {
    const { device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    service.clock.advance(service.app.config.stepUpMaxAgeSeconds);
    const stale = await removeDevice(strong, device.deviceKey);
    expectFailure(stale, 403, 5);
    expect(stale.body.data).toEqual({ message: 'FORBIDDEN', needs: 'strong_fresh' });
  });

  it('answers 404, code 6, for another user’s device and for none, and 400 for a malformed key', async () => {
    const { device } = await signUpWithDevice(service, company);
    const stranger = await signUp(service, company);
    expectFailure(await removeDevice(stranger.authorization, device.deviceKey), 404, 6);
    expectFailure(await removeDevice(stranger.authorization, 'f'.repeat(32)), 404, 6);
    expectFailure(await removeDevice(stranger.authorization, 'nope'), 400, 1);
    // The owner's device is still there.
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
  });

  it('leaves no live session on a device removed while PIN logins race the removal, and is not held back by them', async () => {
    for (let round = 0; round < 3; round++) {
      const { account, device } = await signUpWithDevice(service, company);
      // A fresh strong session removes the settled device at once (contract 3.15): the one the race is about.
      const keptToken = await strongSession(service, company, device);
      // PIN logins on the device, one every few milliseconds from before the removal starts until after it answered.
      let answered = false;
      const removal = removeDevice(keptToken, device.deviceKey).finally(() => {
        answered = true;
      });
      const logins: ReturnType<typeof pinLogin>[] = [];
      while (!answered) {
        logins.push(pinLogin(service, company, device, PINS.login_pin));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const removed = await removal;
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      for (const login of await Promise.all(logins)) {
        if (login.status === 200) expect(await tokenWorks(service, company, `Token ${login.body.data.token.token}`)).toBe(false);
        // A crowd of logins of one user contends for the user's item: on a loaded machine one may run out of time (503).
        else expect([401, 503], JSON.stringify(login.body)).toContain(login.status);
      }
      expect(await querySessions(service.app.table, company.company_id, account.userId, device.deviceKey)).toEqual([]);
    }
  });
});
