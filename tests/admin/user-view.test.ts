// The back office's view (API contract 3.14): one user of the company, the phone and email masked
// unless an admin asks, with devices, sessions, PINs, what is under way and what happened lately;
// counted with the searches against the employee's hour, and recorded, found or not.
import { beforeAll, describe, expect, it } from 'vitest';
import { eraseDueAccounts } from '../../lib/account/erasure.js';
import type { Company } from '../../lib/companies/companies.js';
import { newId } from '../../lib/ids.js';
import { type PendingPhoneChange, pendingChangePut } from '../../lib/store/pending-change-store.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { getUser } from '../../lib/store/user-store.js';
import { deleteHeldAndLand, deleteNow } from '../account/deletion-helpers.js';
import { PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import {
  type Account,
  expectFailure,
  type InProcessService,
  invoke,
  logIn,
  newCompany,
  randomPhoneNumber,
  sessionIdOf,
  signUp,
  testService,
} from '../helpers.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let agent: StaffMember;
let admin: StaffMember;

beforeAll(async () => {
  company = await newCompany(service);
  agent = await staffMember(service, company, 'support');
  admin = await staffMember(service, company, 'admin');
});

const view = (body: Record<string, unknown>, authorization = agent.session, via = service, companyId = company.company_id) =>
  invoke(via.handlers.adminUsersView, {
    path: '/wallet/v3/admin/users/view',
    headers: { CompanyID: companyId, Authorization: authorization },
    body,
  });

const search = (body: Record<string, unknown>, authorization = agent.session, via = service) =>
  invoke(via.handlers.adminUsersSearch, {
    path: '/wallet/v3/admin/users/search',
    headers: { CompanyID: company.company_id, Authorization: authorization },
    body,
  });

/** Every key of a JSON value, however deep. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
  return [];
}

/** Puts a phone change that waits on the user, as a request from an OTP-login session leaves it. */
async function pendingChangeOf(account: Account): Promise<PendingPhoneChange> {
  const now = Math.floor(service.clock.now() / 1000);
  const phoneNumber = randomPhoneNumber();
  const change: PendingPhoneChange = {
    change_id: newId(),
    kind: 'phone',
    acr: 'sms',
    user_type: 2,
    dial_code: '+1',
    phone_number: phoneNumber,
    phone_e164: `+1${phoneNumber}`,
    via: 'user',
    created_at: now,
    effective_at: now + 24 * 3600,
    expires_at: now + 8 * 24 * 3600,
  };
  await writeTransaction(service.app.table, [
    { label: 'pending', item: pendingChangePut(service.app.table, company.company_id, account.userId, change, undefined) },
  ]);
  return change;
}

describe('users/view', () => {
  it('shows support the account with the phone and email masked: devices, sessions, PINs, the pending phone change', async () => {
    const { account, device } = await signUpWithDevice(service, company, { device_id: 'pixel-8' });
    await signUp(service, company, { referral_code: account.referralCode });
    // One wrong login PIN: one try of five taken.
    expectFailure(await pinLogin(service, company, device, '0000'), 400, 17);
    const change = await pendingChangeOf(account);

    const answer = await view({ user_id: account.userId.toUpperCase(), reason: 'call 8812', unknown_field: 'ignored' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const data = answer.body.data;
    const phone = String(account.registration.phone_number);
    const email = String(account.registration.email);
    expect(data.user).toMatchObject({
      user_id: account.userId,
      first_name: account.registration.first_name,
      phone_last4: phone.slice(-4),
      email_masked: `${email[0]}***${email.slice(email.indexOf('@'))}`,
      referral_code: account.referralCode,
      status_id: 1,
    });
    for (const field of ['phone_number', 'dial_code', 'email']) expect(data.user).not.toHaveProperty(field);
    expect(JSON.stringify(answer.body)).not.toContain(phone);
    expect(JSON.stringify(answer.body)).not.toContain(email);
    expect(data.devices).toEqual([
      {
        device_key: device.deviceKey,
        device_type: expect.any(Number),
        device_id: 'pixel-8',
        device_unique_id: expect.anything(),
        created_date: expect.any(Number),
        last_used_date: expect.any(Number),
        settled: 1,
        probation_ends_at: null,
      },
    ]);
    expect(data.sessions).toEqual([
      {
        sid: sessionIdOf(account.authorization),
        began: 'register',
        created_date: expect.any(Number),
        last_used_date: expect.any(Number),
        expires_date: expect.any(Number),
        device_key: device.deviceKey,
      },
    ]);
    const max = service.app.config.pinMaxFailures;
    expect(data.pins).toEqual({
      login: { set: 1, locked: 0, attempts_left: max - 1 },
      transaction: { set: 1, locked: 0, attempts_left: max },
    });
    expect(data.pending_phone_change).toEqual({
      change_id: change.change_id,
      effective_at: change.effective_at,
      phone_last4: change.phone_number.slice(-4),
      via: 'user',
      awaiting_approval: 0,
      started_by: null,
    });
    expect(data.deletion).toBeNull();
    expect(data.referral_count).toBe(1);
  });

  it('shows an admin who sends reveal: 1 the phone and email whole; refuses reveal to support (403 code 5)', async () => {
    const customer = await signUp(service, company);
    const whole = await view({ user_id: customer.userId, reveal: 1, reason: 'fraud case 17' }, admin.session);
    expect(whole.status, JSON.stringify(whole.body)).toBe(200);
    expect(whole.body.data.user).toMatchObject({
      dial_code: '+1',
      phone_number: String(customer.registration.phone_number),
      email: String(customer.registration.email),
    });
    // An admin who does not ask sees them masked too.
    const masked = await view({ user_id: customer.userId, reason: 'x' }, admin.session);
    expect(masked.body.data.user).not.toHaveProperty('phone_number');
    expectFailure(await view({ user_id: customer.userId, reveal: 1, reason: 'x' }), 403, 5);
    expectFailure(await view({ user_id: customer.userId, reveal: 2, reason: 'x' }), 400, 1);
  });

  it('shows a locked PIN, the security events newest first, and a deletion under way; never a hash, PIN, token or key', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const max = service.app.config.pinMaxFailures;
    for (let attempt = 1; attempt <= max; attempt++) await pinLogin(service, company, device, '0000');
    const locked = await view({ user_id: account.userId, reason: 'x' });
    expect(locked.body.data.pins.login).toEqual({ set: 1, locked: 1, attempts_left: 0 });
    expect(locked.body.data.security_events[0]).toEqual({
      notification_event_type: 5,
      notification_title: 'PIN locked',
      created_date: expect.any(Number),
    });

    // The PIN is locked: the deletion is asked from an OTP session, held, and lands once due (contract 3.15).
    const { session: fresh } = await deleteHeldAndLand(service, company, account);
    const answer = await view({ user_id: account.userId, reveal: 1, reason: 'x' }, admin.session);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.user.status_id).toBe(4);
    expect(answer.body.data.deletion).toEqual({ erase_after: expect.any(Number) });
    // A deletion ends every session.
    expect(answer.body.data.sessions).toEqual([]);

    // No secret by name or by value: the record's hashes, the PINs, the tokens, the device's public key.
    expect(keysOf(answer.body).filter((key) => /hash|password|token|secret|public|otp|_pin$/i.test(key))).toEqual([]);
    const text = JSON.stringify(answer.body);
    const stored = (await getUser(service.app.table, company.company_id, account.userId))!;
    for (const secret of [
      ...[stored.password_hash, stored.login_pin_hash, stored.transaction_pin_hash].map((hash) => hash.split('$').at(-1)!),
      account.authorization.split('.').at(-1)!,
      account.refreshToken.split('.')[4]!,
      fresh.split('.').at(-1)!,
      device.publicKey,
      `"${PINS.login_pin}"`,
      `"${PINS.transaction_pin}"`,
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('lists the staff actions on the user, newest first: the view itself and the search before it, by whom and when, never why', async () => {
    const customer = await signUp(service, company);
    const reason = `ticket ${newId()}`;
    expect((await search({ user_id: customer.userId, reason })).status).toBe(200);
    service.clock.advance(2);
    try {
      const before = Math.floor(service.clock.now() / 1000);
      const answer = await view({ user_id: customer.userId, reason }, admin.session);
      const viewedAt = answer.body.data.staff_actions[0]?.date;
      expect(viewedAt).toBeGreaterThanOrEqual(before);
      expect(viewedAt).toBeLessThanOrEqual(Math.floor(service.clock.now() / 1000));
      expect(answer.body.data.staff_actions).toEqual([
        { action: 'view', actor_id: admin.userId, date: expect.any(Number) },
        { action: 'search', actor_id: agent.userId, date: expect.any(Number) },
      ]);
      expect(answer.body.data.staff_actions[1].date).toBeLessThan(answer.body.data.staff_actions[0].date);
      expect(JSON.stringify(answer.body)).not.toContain(reason);
    } finally {
      service.clock.reset();
    }
  });

  it('shows an erased user’s shell (status 5), as a search finds it, with no phone or email left to mask', async () => {
    const erasing = testService({ ACCOUNT_ERASE_AFTER_DAYS: '0' });
    const own = await newCompany(erasing);
    const ownAdmin = await staffMember(erasing, own, 'admin');
    const { account, device } = await signUpWithDevice(erasing, own);
    await deleteNow(erasing, own, await strongSession(erasing, own, device));
    const forever = () => Number.POSITIVE_INFINITY;
    expect(await eraseDueAccounts(erasing.app, { companyId: own.company_id, timeLeftMs: forever })).toMatchObject({ erased: 1 });
    const headers = { CompanyID: own.company_id, Authorization: ownAdmin.session };
    const body = { user_id: account.userId, reveal: 1, reason: 'x' };
    const viewed = await invoke(erasing.handlers.adminUsersView, { path: '/v', headers, body });
    expect(viewed.status, JSON.stringify(viewed.body)).toBe(200);
    expect(viewed.body.data.user).toMatchObject({ user_id: account.userId, status_id: 5, phone_last4: '', email_masked: null });
    const found = await invoke(erasing.handlers.adminUsersSearch, { path: '/s', headers, body: { user_id: account.userId, reason: 'x' } });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data.users).toEqual([expect.objectContaining({ user_id: account.userId, status_id: 5, phone_last4: '' })]);
  });

  it('answers 404 code 6 for an id the company does not hold, another company’s user included, and records the view', async () => {
    const other = await newCompany(service);
    const stranger = await signUp(service, other);
    const reason = `probe ${newId()}`;
    for (const userId of [newId(), stranger.userId]) expectFailure(await view({ user_id: userId, reason }), 404, 6);
    const logged = (await queryStaffChain(service.app.table, company.company_id)).filter((record) => record.reason === reason);
    expect(logged.map(({ action, actor_id, user_id }) => ({ action, actor_id, user_id }))).toEqual([
      { action: 'view', actor_id: agent.userId, user_id: undefined },
      { action: 'view', actor_id: agent.userId, user_id: undefined },
    ]);
  });

  it('is refused to a customer and an employee with no role (403 code 5), a session begun by registration (400 code 14), and without a reason or a user id (400 code 1)', async () => {
    const customer = await signUp(service, company);
    const noRole = await staffMember(service, company, 'none');
    for (const session of [await logIn(service, company, customer), noRole.session]) {
      expectFailure(await view({ user_id: customer.userId, reason: 'x' }, session), 403, 5);
    }
    expectFailure(await view({ user_id: customer.userId, reason: 'x' }, agent.authorization), 400, 14);
    for (const body of [
      { user_id: customer.userId },
      { user_id: customer.userId, reason: '  ' },
      { user_id: 'abc', reason: 'x' },
      { reason: 'x' },
    ]) {
      expectFailure(await view(body), 400, 1);
    }
  });

  it('counts with the searches against ADMIN_LOOKUPS_PER_HOUR, an unknown id included: then 429 code 12 for both', async () => {
    const limited: InProcessService = testService({ ADMIN_LOOKUPS_PER_HOUR: '3' });
    const own = await staffMember(limited, company, 'support');
    const customer = await signUp(limited, company);
    expect((await search({ user_id: customer.userId, reason: 'x' }, own.session, limited)).status).toBe(200);
    expect((await view({ user_id: customer.userId, reason: 'x' }, own.session, limited)).status).toBe(200);
    expect((await view({ user_id: newId(), reason: 'x' }, own.session, limited)).status).toBe(404);
    const refused = await view({ user_id: customer.userId, reason: 'x' }, own.session, limited);
    expectFailure(refused, 429, 12);
    expect(Number(refused.headers?.['retry-after'])).toBeGreaterThan(0);
    expectFailure(await search({ user_id: customer.userId, reason: 'x' }, own.session, limited), 429, 12);
  });
});
