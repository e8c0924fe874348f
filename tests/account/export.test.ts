// The right of access (API contract 3.11): GET /wallet/v3/user/export and npm run user:export
// answer one document of everything held about a user, and never a token, hash, PIN, key or code.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { getUser } from '../../lib/store/user-store.js';
import { main as exportUser } from '../../scripts/export-user.js';
import { staffMember } from '../admin/staff.js';
import { otpLogin, PINS, signUpWithDevice } from '../devices/device-helpers.js';
import { type Account, expectFailure, invoke, newCompany, runOperator, signUp, testService } from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const exportOf = (account: Account, authorization = account.authorization) =>
  invoke(service.handlers.userExport, {
    method: 'GET',
    path: '/wallet/v3/user/export',
    headers: { CompanyID: company.company_id, Authorization: authorization },
  });

const runExport = (args: string[]) => runOperator(exportUser, args);

describe('GET /wallet/v3/user/export', () => {
  it('holds the profile, referral count, devices, sessions, notifications and security events, and no secret', async () => {
    const { account, device } = await signUpWithDevice(service, company, { device_id: 'pixel-8' });
    // Two referred sign-ups (two referral notices) and an OTP login on a new device (a new-device notice, a second session).
    await signUp(service, company, { referral_code: account.referralCode });
    await signUp(service, company, { referral_code: account.referralCode });
    const login = await otpLogin(service, company, account, {
      device_public_key: (await import('../harness/device-keys.js')).newDeviceKeyPair().publicKey,
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);

    const answer = await exportOf(account);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const data = answer.body.data;
    expect(data.user).toMatchObject({ user_id: account.userId, referral_code: account.referralCode, status_id: 1 });
    expect(data.referral).toEqual({ referral_code: account.referralCode, referral_count: 2 });
    expect(data.devices).toHaveLength(2);
    expect(data.devices).toContainEqual(expect.objectContaining({ device_key: device.deviceKey, device_id: 'pixel-8' }));
    expect(data.sessions.map((session: { began: string }) => session.began).sort()).toEqual(['otp', 'register']);
    expect(data.notifications.map((notice: { notification_event_type: number }) => notice.notification_event_type).sort()).toEqual([
      1, 1, 2,
    ]);
    expect(data.security_events.map((notice: { notification_event_type: number }) => notice.notification_event_type)).toEqual([2]);

    // No secret, whole or in part: tokens, refresh tokens, password, PINs, and every hash the record holds.
    const text = JSON.stringify(answer.body);
    const stored = (await getUser(service.app.table, company.company_id, account.userId))!;
    const secrets = [
      account.authorization.split('.').at(-1)!,
      account.refreshToken.split('.')[4]!,
      login.body.data.refresh_token.split('.')[4],
      String(account.registration.password),
      ...[stored.password_hash, stored.login_pin_hash, stored.transaction_pin_hash].map((hash) => hash.split('$').at(-1)!),
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const pin of [PINS.login_pin, PINS.transaction_pin]) expect(text).not.toMatch(new RegExp(`(?<![0-9])${pin}(?![0-9])`));
    expect(text).not.toMatch(/refresh_hash|_hash|public_key/);
  });

  it('lists the back-office actions on the user, newest first: who looked and when, never why (contract 3.14)', async () => {
    const account = await signUp(service, company);
    expect((await exportOf(account)).body.data.staff_actions).toEqual([]);
    const agent = await staffMember(service, company, 'support');
    const reason = `ticket ${account.userId}`;
    const backOffice = (operation: 'adminUsersSearch' | 'adminUsersView') =>
      invoke(service.handlers[operation], {
        path: '/admin',
        headers: { CompanyID: company.company_id, Authorization: agent.session },
        body: { user_id: account.userId, reason },
      });
    expect((await backOffice('adminUsersSearch')).status).toBe(200);
    service.clock.advance(2);
    try {
      expect((await backOffice('adminUsersView')).status).toBe(200);
      const answer = await exportOf(account);
      expect(answer.body.data.staff_actions).toEqual([
        { action: 'view', actor_id: agent.userId, date: expect.any(Number) },
        { action: 'search', actor_id: agent.userId, date: expect.any(Number) },
      ]);
      expect(answer.body.data.staff_actions[1].date).toBeLessThan(answer.body.data.staff_actions[0].date);
      expect(JSON.stringify(answer.body)).not.toContain(reason);
    } finally {
      service.clock.reset();
    }
  });

  it('is the same document npm run user:export prints, and needs the user’s own token', async () => {
    const account = await signUp(service, company);
    const fromApi = (await exportOf(account)).body.data;
    const fromOperator = await runExport(['--company', company.company_id, '--user', account.userId]);
    expect(fromOperator.code, fromOperator.stderr).toBe(0);
    expect({ ...fromOperator.last, exported_date: 0 }).toEqual({ ...fromApi, exported_date: 0 });
    expect((await runExport(['--company', company.company_id, '--user', '0'.repeat(32)])).code).toBe(1);
    expect((await runExport(['--company', 'nope'])).code).toBe(2);
    expectFailure(await exportOf(account, 'Token nope'), 401, 4);
  });
});
