// The back office's actions on a user's sessions and status (API contract 3.14): support ends one
// session or all, disables a user; only an admin enables one again. Each commits with its record
// (the user's partition and the company's log) and notice 8; a retry with its Idempotency-Key gets
// the first outcome; a login racing a disable leaves no live session.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { phoneClaimKey, sessionKey, userKey } from '../../lib/store/keys.js';
import { querySessions } from '../../lib/store/session-store.js';
import { deleteNow } from '../account/deletion-helpers.js';
import { PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import {
  type Account,
  codeIn,
  expectFailure,
  invoke,
  logIn,
  newCompany,
  newEmployee,
  outboxMessages,
  sessionIdOf,
  signUp,
  testService,
  tokenStatus,
} from '../helpers.js';
import { type ActionName, act, expectRecorded, staffRecordsOn, storedItem, supportNotices } from './actions.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let other: Company;
let agent: StaffMember;
let admin: StaffMember;

beforeAll(async () => {
  [company, other] = [await newCompany(service), await newCompany(service)];
  agent = await staffMember(service, company, 'support');
  admin = await staffMember(service, company, 'admin');
});

const action = (name: ActionName, authorization: string, body: Record<string, unknown>, key?: string) =>
  act(service, company, name, authorization, body, key);
const endSessions = (authorization: string, body: Record<string, unknown>, key?: string) =>
  action('adminUsersSessionsEnd', authorization, body, key);
const setStatus = (authorization: string, body: Record<string, unknown>, key?: string) =>
  action('adminUsersStatus', authorization, body, key);
const ticket = () => `ticket ${randomUUID()}`;
const statusOf = async (account: Account) => (await storedItem(service, userKey(company.company_id, account.userId)))?.status_id;
const claimStatusOf = async (account: Account) =>
  (await storedItem(service, phoneClaimKey(company.company_id, `+1${account.registration.phone_number}`, 2)))?.status_id;
/** A login by code once the send interval has passed since the last one. */
function nextLogIn(account: Account): Promise<string> {
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  return logIn(service, company, account);
}

/** Whether a login code request, once the send interval has passed, sent the user a text (a user not active gets the same 200 and none). */
async function loginCodeSent(account: Account): Promise<boolean> {
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const phone = String(account.registration.phone_number);
  const texts = () => outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`).length;
  const before = texts();
  const body = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 };
  const answer = await invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body });
  expect(answer.status).toBe(200);
  return texts() > before;
}

const refresh = (account: Account) =>
  invoke(service.handlers.tokenRefresh, {
    path: '/wallet/v3/auth/token/refresh',
    headers: { CompanyID: company.company_id },
    body: { refresh_token: account.refreshToken },
  });

describe('every action', () => {
  const bodies: Record<ActionName, (userId: string) => Record<string, unknown>> = {
    adminUsersSessionsEnd: (userId) => ({ user_id: userId, reason: 'x' }),
    adminUsersStatus: (userId) => ({ user_id: userId, status: 'disabled', reason: 'x' }),
    adminUsersDevicesRemove: (userId) => ({ user_id: userId, device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c', reason: 'x' }),
    adminUsersRestore: (userId) => ({ user_id: userId, reason: 'x' }),
  };
  const names = Object.keys(bodies) as ActionName[];

  it.each(names)('%s: refuses a customer’s token and an employee with no role (403 code 5), and records nothing', async (name) => {
    const customer = await signUp(service, company);
    const noRole = await staffMember(service, company, 'none');
    for (const session of [await logIn(service, company, customer), noRole.session]) {
      expectFailure(await action(name, session, bodies[name](customer.userId)), 403, 5);
    }
    expect(await staffRecordsOn(service, company, customer.userId)).toEqual([]);
    expect(await statusOf(customer)).toBe(1);
  });

  it.each(names)('%s: wants a reason (400 code 1 naming it)', async (name) => {
    const customer = await signUp(service, company);
    const { reason: _, ...noReason } = bodies[name](customer.userId);
    const answer = await action(name, agent.session, noReason);
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors).toEqual([expect.objectContaining({ field: 'reason' })]);
    expectFailure(await action(name, agent.session, { ...noReason, reason: '  ' }), 400, 1);
  });

  it.each(names)('%s: an unknown user, or another company’s, is 404 code 6, and nothing is recorded', async (name) => {
    const outsider = await signUp(service, other);
    for (const userId of ['0123456789abcdef0123456789abcdef', outsider.userId]) {
      const answer = await action(name, admin.session, bodies[name](userId));
      expectFailure(answer, 404, 6);
    }
    expect(await staffRecordsOn(service, other, outsider.userId)).toEqual([]);
    expect((await storedItem(service, userKey(other.company_id, outsider.userId)))?.status_id).toBe(1);
    expect(await tokenStatus(service, other, outsider.authorization)).toBe(200);
  });

  it.each(names)('%s: staff act on others only, and support on no employee (403 code 5)', async (name) => {
    const employee = await newEmployee(service, company);
    // Its registration by the operator is recorded; nothing after it.
    const recorded = (await staffRecordsOn(service, company, employee.userId)).map((record) => record.action);
    expect(recorded).toEqual(['employee_register']);
    expectFailure(await action(name, agent.session, bodies[name](employee.userId)), 403, 5);
    expectFailure(await action(name, agent.session, bodies[name](agent.userId)), 403, 5);
    expectFailure(await action(name, admin.session, bodies[name](admin.userId)), 403, 5);
    expect((await staffRecordsOn(service, company, employee.userId)).map((record) => record.action)).toEqual(recorded);
    expect(await tokenStatus(service, company, employee.authorization)).toBe(200);
  });
});

describe('users/sessions/end', () => {
  it('ends every session of the user: their tokens answer 401, their refresh tokens are refused', async () => {
    const customer = await signUp(service, company);
    const second = await logIn(service, company, customer);
    const reason = ticket();
    const notices = await supportNotices(service, company, customer.userId);
    const answer = await endSessions(agent.session, { user_id: customer.userId, reason });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ message: 'Every session ended', revoked: 2 });
    expect(await tokenStatus(service, company, customer.authorization)).toBe(401);
    expect(await tokenStatus(service, company, second)).toBe(401);
    expectFailure(await refresh(customer), 401, 4);
    const ended = await storedItem(service, sessionKey(company.company_id, customer.userId, sessionIdOf(second)));
    expect(ended?.ended_reason).toBe('support');
    await expectRecorded(service, company, { userId: customer.userId, actorId: agent.userId, action: 'sessions_end', reason }, notices);
    // The user logs in again as before.
    expect(await tokenStatus(service, company, await nextLogIn(customer))).toBe(200);
  });

  it('ends the one session sid names; an unknown, ended or other user’s sid is 404 code 6 and records nothing', async () => {
    const customer = await signUp(service, company);
    const kept = await logIn(service, company, customer);
    const sid = sessionIdOf(customer.authorization);
    const reason = ticket();
    const answer = await endSessions(admin.session, { user_id: customer.userId, sid: sid.toUpperCase(), reason });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ message: 'Session ended', revoked: 1 });
    expect(await tokenStatus(service, company, customer.authorization)).toBe(401);
    expect(await tokenStatus(service, company, kept)).toBe(200);
    expect((await storedItem(service, sessionKey(company.company_id, customer.userId, sid)))?.ended_reason).toBe('support');
    await expectRecorded(service, company, { userId: customer.userId, actorId: admin.userId, action: 'sessions_end', reason }, 0);

    const someoneElse = await signUp(service, company);
    for (const refused of [sid, '0123456789abcdef0123456789abcdef', sessionIdOf(someoneElse.authorization)]) {
      const again = await endSessions(admin.session, { user_id: customer.userId, sid: refused, reason: 'again' });
      expectFailure(again, 404, 6);
      expect(again.body.data.errors).toEqual([expect.objectContaining({ field: 'sid' })]);
    }
    expect(await tokenStatus(service, company, someoneElse.authorization)).toBe(200);
    expect((await staffRecordsOn(service, company, customer.userId)).filter((record) => record.reason === 'again')).toEqual([]);
    expect(await supportNotices(service, company, customer.userId)).toBe(1);
  });

  it('answers a retry with the same Idempotency-Key its first outcome, and ends and records nothing more', async () => {
    const customer = await signUp(service, company);
    await logIn(service, company, customer);
    const key = randomUUID();
    const body = { user_id: customer.userId, reason: ticket() };
    const first = await endSessions(agent.session, body, key);
    expect(first.body.data).toEqual({ message: 'Every session ended', revoked: 2 });
    const retry = await endSessions(agent.session, body, key);
    expect({ status: retry.status, body: retry.body }).toEqual({ status: first.status, body: first.body });
    expect((await staffRecordsOn(service, company, customer.userId)).filter((record) => record.reason === body.reason)).toHaveLength(1);
    expect(await supportNotices(service, company, customer.userId)).toBe(1);
    // Without the key it is another request: nothing left to end.
    expect((await endSessions(agent.session, body)).body.data.revoked).toBe(0);
  });
});

describe('users/status', () => {
  it('lets support disable an active user: status 2 on the user and the phone claim, every session ended, no login', async () => {
    const customer = await signUp(service, company);
    const second = await logIn(service, company, customer);
    const reason = ticket();
    const answer = await setStatus(agent.session, { user_id: customer.userId, status: 'disabled', reason });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ message: 'User disabled', status_id: 2, revoked: 2 });
    expect([await statusOf(customer), await claimStatusOf(customer)]).toEqual([2, 2]);
    expect([await tokenStatus(service, company, customer.authorization), await tokenStatus(service, company, second)]).toEqual([401, 401]);
    expect((await storedItem(service, sessionKey(company.company_id, customer.userId, sessionIdOf(second))))?.ended_reason).toBe(
      'disabled',
    );
    expect(await loginCodeSent(customer)).toBe(false);
    await expectRecorded(service, company, { userId: customer.userId, actorId: agent.userId, action: 'status', reason }, 0);
  });

  it('lets only an admin enable a disabled user (support: 403 code 5): status 1 again, and login works', async () => {
    const customer = await signUp(service, company);
    expect((await setStatus(agent.session, { user_id: customer.userId, status: 'disabled', reason: 'x' })).status).toBe(200);
    expectFailure(await setStatus(agent.session, { user_id: customer.userId, status: 'active', reason: 'x' }), 403, 5);
    expect(await statusOf(customer)).toBe(2);
    const reason = ticket();
    const answer = await setStatus(admin.session, { user_id: customer.userId, status: 'active', reason });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ message: 'User enabled', status_id: 1, revoked: 0 });
    expect([await statusOf(customer), await claimStatusOf(customer)]).toEqual([1, 1]);
    expect(await tokenStatus(service, company, await nextLogIn(customer))).toBe(200);
    await expectRecorded(service, company, { userId: customer.userId, actorId: admin.userId, action: 'status', reason }, 1);
  });

  it('sets no other status: enabling an active user, disabling a disabled or deleted one is 409 code 23, changing nothing', async () => {
    const active = await signUp(service, company);
    expectFailure(await setStatus(admin.session, { user_id: active.userId, status: 'active', reason: 'x' }), 409, 23);
    expect(await tokenStatus(service, company, active.authorization)).toBe(200);

    const disabled = await signUp(service, company);
    expect((await setStatus(admin.session, { user_id: disabled.userId, status: 'disabled', reason: 'x' })).status).toBe(200);
    expectFailure(await setStatus(admin.session, { user_id: disabled.userId, status: 'disabled', reason: 'x' }), 409, 23);

    const { account: deleted, device } = await signUpWithDevice(service, company);
    await deleteNow(service, company, await strongSession(service, company, device));
    for (const status of ['disabled', 'active']) {
      const answer = await setStatus(admin.session, { user_id: deleted.userId, status, reason: 'x' });
      expectFailure(answer, 409, 23);
      expect(answer.body.data.errors).toEqual([expect.objectContaining({ field: 'user_id', detail: expect.stringContaining('deleted') })]);
    }
    expect(await statusOf(deleted)).toBe(4);
    expect(await staffRecordsOn(service, company, active.userId)).toEqual([]);
    expect(await staffRecordsOn(service, company, deleted.userId)).toEqual([]);
    expect(await supportNotices(service, company, disabled.userId)).toBe(1);
  });

  it('answers a retried disable with the same Idempotency-Key its first outcome; without the key it is refused', async () => {
    const customer = await signUp(service, company);
    const key = randomUUID();
    const body = { user_id: customer.userId, status: 'disabled', reason: ticket() };
    const first = await setStatus(agent.session, body, key);
    expect(first.body.data).toEqual({ message: 'User disabled', status_id: 2, revoked: 1 });
    const retry = await setStatus(agent.session, body, key);
    expect({ status: retry.status, body: retry.body }).toEqual({ status: first.status, body: first.body });
    expect(await staffRecordsOn(service, company, customer.userId)).toHaveLength(1);
    expectFailure(await setStatus(agent.session, body), 409, 23);
  });

  it('leaves no live session when the user’s OTP and PIN logins race the disable', async () => {
    for (let round = 0; round < 4; round++) {
      const { account, device } = await signUpWithDevice(service, company);
      const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
      const headers = { CompanyID: company.company_id };
      expect((await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target })).status).toBe(200);
      const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
      const [disabled, otp, pin] = await Promise.all([
        setStatus(agent.session, { user_id: account.userId, status: 'disabled', reason: 'race' }),
        invoke(service.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: code } }),
        pinLogin(service, company, device, PINS.login_pin),
      ]);
      expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
      for (const login of [otp, pin]) {
        expect([200, 401]).toContain(login.status);
        if (login.status === 200) expect(await tokenStatus(service, company, `Token ${login.body.data.token.token}`)).toBe(401);
      }
      expect(await querySessions(service.app.table, company.company_id, account.userId)).toEqual([]);
    }
  });
});

describe('users/devices/remove', () => {
  const removeDevice = (authorization: string, body: Record<string, unknown>) => action('adminUsersDevicesRemove', authorization, body);
  const devicesOf = async (authorization: string) =>
    (
      await invoke(service.handlers.devices, {
        method: 'GET',
        path: '/wallet/v3/auth/devices',
        headers: { CompanyID: company.company_id, Authorization: authorization },
      })
    ).body.data.devices as { device_key: string }[];

  it('removes the device with every session bound to it: its PIN login is refused, the user’s other sessions live', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const onDevice = await pinLogin(service, company, device, PINS.login_pin);
    const elsewhere = await nextLogIn(account);
    const reason = ticket();
    const answer = await removeDevice(agent.session, { user_id: account.userId, device_key: device.deviceKey, reason });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ message: 'Device removed', revoked: 2 });
    expect(await tokenStatus(service, company, `Token ${onDevice.body.data.token.token}`)).toBe(401);
    expect(await tokenStatus(service, company, account.authorization)).toBe(401);
    expect(await devicesOf(elsewhere)).toEqual([]);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 401, 4);
    await expectRecorded(service, company, { userId: account.userId, actorId: agent.userId, action: 'device_remove', reason }, 0);
  });

  it('answers 404 code 6 for a device that is not that user’s (another user’s, unknown, removed), and records nothing', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const { account: owner, device: theirs } = await signUpWithDevice(service, company);
    for (const deviceKey of [theirs.deviceKey, '0123456789abcdef0123456789abcdef']) {
      expectFailure(await removeDevice(admin.session, { user_id: account.userId, device_key: deviceKey, reason: 'x' }), 404, 6);
    }
    expect(await devicesOf(owner.authorization)).toHaveLength(1);
    expect(await staffRecordsOn(service, company, account.userId)).toEqual([]);
    expect((await removeDevice(admin.session, { user_id: account.userId, device_key: device.deviceKey, reason: 'x' })).status).toBe(200);
    expectFailure(await removeDevice(admin.session, { user_id: account.userId, device_key: device.deviceKey, reason: 'x' }), 404, 6);
    expect(await supportNotices(service, company, account.userId)).toBe(1);
  });
});

describe('users/restore', () => {
  const restore = (authorization: string, userId: string, reason = 'x') =>
    action('adminUsersRestore', authorization, { user_id: userId, reason });
  async function deleted(overrides: Record<string, unknown> = {}): Promise<Account> {
    // A fresh strong session deletes at once, the claims freed (contract 3.15, second reading).
    const { account, device } = await signUpWithDevice(service, company, overrides);
    await deleteNow(service, company, await strongSession(service, company, device));
    return account;
  }

  it('undoes a deletion before its erasure: active again, phone and email back, and the user logs in', async () => {
    const account = await deleted();
    const reason = ticket();
    const answer = await restore(agent.session, account.userId, reason);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ message: 'User restored', status_id: 1 });
    expect([await statusOf(account), await claimStatusOf(account)]).toEqual([1, 1]);
    expect(await tokenStatus(service, company, await nextLogIn(account))).toBe(200);
    await expectRecorded(service, company, { userId: account.userId, actorId: agent.userId, action: 'restore', reason }, 0);
  });

  it('refuses a user not awaiting erasure, or past erase_after, with 409 code 23, and records nothing', async () => {
    const active = await signUp(service, company);
    expectFailure(await restore(admin.session, active.userId), 409, 23);
    const due = await deleted();
    service.clock.advance(service.app.config.accountEraseAfterDays * 86_400 + 1);
    try {
      const late = await staffMember(service, company, 'support');
      const answer = await restore(late.session, due.userId);
      expectFailure(answer, 409, 23);
      expect(answer.body.data.errors).toEqual([
        expect.objectContaining({ field: 'user_id', detail: expect.stringContaining('erase_after') }),
      ]);
    } finally {
      service.clock.reset();
    }
    expect(await statusOf(due)).toBe(4);
    expect(await staffRecordsOn(service, company, active.userId)).toEqual([]);
    expect(await staffRecordsOn(service, company, due.userId)).toEqual([]);
  });

  it('refuses, with 409 code 7 naming phone or email, a number or email someone registered since, and changes nothing', async () => {
    const byPhone = await deleted();
    await signUp(service, company, { phone_number: byPhone.registration.phone_number });
    const phoneRefused = await restore(agent.session, byPhone.userId);
    expectFailure(phoneRefused, 409, 7);
    expect(phoneRefused.body.data.errors).toEqual([expect.objectContaining({ field: 'phone' })]);

    const byEmail = await deleted();
    await signUp(service, company, { email: byEmail.registration.email });
    const emailRefused = await restore(agent.session, byEmail.userId);
    expectFailure(emailRefused, 409, 7);
    expect(emailRefused.body.data.errors).toEqual([expect.objectContaining({ field: 'email' })]);

    for (const account of [byPhone, byEmail]) {
      expect(await statusOf(account)).toBe(4);
      expect(await staffRecordsOn(service, company, account.userId)).toEqual([]);
      expect(await supportNotices(service, company, account.userId)).toBe(0);
    }
  });
});
