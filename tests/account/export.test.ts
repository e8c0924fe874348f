// The right of access (API contract 3.11): GET /wallet/v3/user/export and npm run user:export
// answer one document of everything held about a user, and never a token, hash, PIN, key or code.
import { beforeAll, describe, expect, it } from 'vitest';
import { HELD_EXPORT_DELIVERY_SECONDS } from '../../lib/account/export.js';
import type { Company } from '../../lib/companies/companies.js';
import { getUser } from '../../lib/store/user-store.js';
import { main as exportUser } from '../../scripts/export-user.js';
import { staffMember } from '../admin/staff.js';
import { otpLogin, PINS, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { type Account, expectFailure, invoke, logIn, newCompany, outboxMessages, runOperator, signUp, testService } from '../helpers.js';

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

    // A strong session gets the document at once (an SMS-strength one waits: below).
    const strong = await strongSession(service, company, device);
    const answer = await exportOf(account, strong);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const data = answer.body.data;
    expect(data.user).toMatchObject({ user_id: account.userId, referral_code: account.referralCode, status_id: 1 });
    expect(data.referral).toEqual({ referral_code: account.referralCode, referral_count: 2 });
    expect(data.devices).toHaveLength(2);
    expect(data.devices).toContainEqual(expect.objectContaining({ device_key: device.deviceKey, device_id: 'pixel-8' }));
    expect(data.sessions.map((session: { began: string }) => session.began).sort()).toEqual(['otp', 'pin', 'register']);
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
    const { account, device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    expect((await exportOf(account, strong)).body.data.staff_actions).toEqual([]);
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
      const answer = await exportOf(account, strong);
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
    const { account, device } = await signUpWithDevice(service, company);
    const fromApi = (await exportOf(account, await strongSession(service, company, device))).body.data;
    const fromOperator = await runExport(['--company', company.company_id, '--user', account.userId]);
    expect(fromOperator.code, fromOperator.stderr).toBe(0);
    expect({ ...fromOperator.last, exported_date: 0 }).toEqual({ ...fromApi, exported_date: 0 });
    expect((await runExport(['--company', company.company_id, '--user', '0'.repeat(32)])).code).toBe(1);
    expect((await runExport(['--company', 'nope'])).code).toBe(2);
    expectFailure(await exportOf(account, 'Token nope'), 401, 4);
  });
});

describe('GET /wallet/v3/user/export from an SMS-strength session (contract 3.15, second reading)', () => {
  const hold = () => service.app.config.phoneChangeHoldHours * 3600;
  // Every text to the number (codes and warnings): no code is asked for between two counts below.
  const warnings = (account: Account) => outboxMessages(service.app.config.sms.outboxFile, `+1${account.registration.phone_number}`);

  it('is held for a SIM swapper: the number warned, the same change answered again, the document only once due', async () => {
    const account = await signUp(service, company);
    try {
      // The swapper's OTP login to the owner's number is SMS-strength: the export waits, told by SMS.
      const swapper = await logIn(service, company, account);
      const warnedBefore = warnings(account).length;
      const held = await exportOf(account, swapper);
      expect(held.body.data, JSON.stringify(held.body)).toEqual({
        message: 'Export pending',
        pending: 1,
        change_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        effective_at: expect.any(Number),
      });
      expect(held.body.data.user).toBeUndefined();
      expect(warnings(account).length).toBe(warnedBefore + 1);
      // Asked again meanwhile: the same change, no new warning, the clock not restarted.
      service.clock.advance(60);
      const again = await exportOf(account, swapper);
      expect(again.body.data).toMatchObject({ pending: 1, change_id: held.body.data.change_id, effective_at: held.body.data.effective_at });
      expect(warnings(account).length).toBe(warnedBefore + 1);
      // Once due, any session of the user gets the document.
      service.clock.advance(hold() - 60);
      const later = await logIn(service, company, account);
      const delivered = await exportOf(account, later);
      expect(delivered.body.data.user).toMatchObject({ user_id: account.userId });
      expect(delivered.body.data.pending).toBeUndefined();
      // Its delivery lasts 7 days; then the change is void and a new request waits again.
      service.clock.advance(HELD_EXPORT_DELIVERY_SECONDS);
      const next = await exportOf(account, await logIn(service, company, account));
      expect(next.body.data.pending).toBe(1);
      expect(next.body.data.change_id).not.toBe(held.body.data.change_id);
    } finally {
      service.clock.reset();
    }
  });

  it('is delivered to the owner’s strong session at once while a held one waits, and the owner may cancel the held one', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const held = await exportOf(account, await logIn(service, company, account));
    expect(held.body.data.pending).toBe(1);
    const strong = await strongSession(service, company, device);
    const listed = await exportOf(account, strong);
    expect(listed.body.data.pending_changes).toEqual([expect.objectContaining({ change_id: held.body.data.change_id, kind: 'export' })]);
    const cancelled = await invoke(service.handlers.userChangesCancel, {
      path: '/wallet/v3/user/changes/cancel',
      headers: { CompanyID: company.company_id, Authorization: strong },
      body: { change_id: held.body.data.change_id },
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect((await exportOf(account, strong)).body.data.pending_changes).toEqual([]);
  });
});
