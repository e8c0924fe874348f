// The account's profile (API contract 3.11 and 3.15, second reading): the token user sees what is
// held about them, never a secret, and changes the fields they may, an email's claim moving with the
// record. From an SMS-strength session (a SIM swapper's OTP login) a change of the names, the birth
// date or the email waits as a held change (kind profile); from a strong session it is at once.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { emailClaimKey } from '../../lib/store/keys.js';
import { staffMember } from '../admin/staff.js';
import { signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { type Account, expectFailure, invoke, logIn, newCompany, newEmployee, outboxMessages, signUp, testService } from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const headers = (account: Account) => ({ CompanyID: company.company_id, Authorization: account.authorization });
const profile = (account: Account) =>
  invoke(service.handlers.userProfile, { method: 'GET', path: '/wallet/v3/user/profile', headers: headers(account) });
const update = (account: Account, body: unknown) =>
  invoke(service.handlers.userProfileUpdate, { path: '/wallet/v3/user/profile/update', headers: headers(account), body });

/** A new user whose token is a strong session (a PIN login on the device bound at registration): their changes are at once. */
async function strongAccount(overrides: Record<string, unknown> = {}): Promise<Account> {
  const { account, device } = await signUpWithDevice(service, company, overrides);
  return { ...account, authorization: await strongSession(service, company, device) };
}

async function emailHolder(email: string, userType = 2): Promise<string | undefined> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: emailClaimKey(company.company_id, email, userType), ConsistentRead: true }),
  );
  return Item?.user_id;
}

describe('GET /wallet/v3/user/profile', () => {
  it('shows the contract’s fields of the token user, and no password, PIN, hash or key', async () => {
    const account = await signUp(service, company, { location_point: '38.8977,-77.0365', birth_date: 631152000000 });
    const answer = await profile(account);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { user } = answer.body.data;
    expect(Object.keys(user).sort()).toEqual(
      [
        'user_id',
        'user_type',
        'first_name',
        'last_name',
        'email',
        'dial_code',
        'phone_number',
        'phone_verified',
        'birth_date',
        'image',
        'kyc_status',
        'kyc_process_status',
        'country_id',
        'location_point',
        'referral_code',
        'status_id',
        'created_date',
        'updated_date',
      ].sort(),
    );
    expect(user).toMatchObject({
      user_id: account.userId,
      user_type: 2,
      email: account.registration.email,
      phone_number: account.registration.phone_number,
      phone_verified: 0,
      birth_date: 631152000000,
      location_point: '38.8977,-77.0365',
      referral_code: account.referralCode,
      status_id: 1,
    });
    const text = JSON.stringify(answer.body);
    for (const secret of [account.registration.password, account.registration.login_pin, account.registration.transaction_pin]) {
      expect(text).not.toContain(String(secret));
    }
    expect(text).not.toMatch(/hash|scrypt|session_version/);
    expectFailure(
      await invoke(service.handlers.userProfile, { method: 'GET', path: '/p', headers: { CompanyID: company.company_id } }),
      401,
      4,
    );
  });

  it('shows an employee their back-office role (support, admin, or null), which the console shows admin controls by', async () => {
    const roles = { admin: await staffMember(service, company, 'admin'), support: await staffMember(service, company, 'support') };
    const none = await newEmployee(service, company);
    expect((await profile(none)).body.data.user).toMatchObject({ user_type: 1, role: null });
    for (const [role, employee] of Object.entries(roles)) {
      expect((await profile({ ...employee, authorization: employee.session })).body.data.user).toMatchObject({ user_type: 1, role });
    }
  });
});

describe('POST /wallet/v3/user/profile/update', () => {
  it('changes names, image, birth date and location with registration’s rules, and answers the new profile', async () => {
    const account = await strongAccount();
    const answer = await update(account, {
      first_name: '  Augusta Ada ',
      last_name: 'King',
      image: 'https://example.com/ada.png',
      birth_date: 631152000000,
      location_point: '51.5,-0.12',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.user).toMatchObject({
      first_name: 'Augusta Ada',
      last_name: 'King',
      image: 'https://example.com/ada.png',
      birth_date: 631152000000,
      location_point: '51.5,-0.12',
    });
    expect((await profile(account)).body.data.user).toEqual(answer.body.data.user);
    // Registration's rules: a birth date in the future, a bad URL, a malformed location.
    expectFailure(await update(account, { birth_date: Date.now() + 86_400_000 }), 400, 1);
    expectFailure(await update(account, { image: 'ftp://example.com/x' }), 400, 1);
    expectFailure(await update(account, { location_point: '100,0' }), 400, 1);
    expectFailure(await update(account, { email: 'not an email' }), 400, 1);
  });

  it('refuses each field the user may not change with 400 code 1 naming it, and changes nothing', async () => {
    const account = await signUp(service, company);
    const before = (await profile(account)).body.data.user;
    for (const field of [
      'phone_number',
      'dial_code',
      'user_type',
      'status_id',
      'kyc_status',
      'kyc_process_status',
      'referral_code',
      'country_id',
    ]) {
      const answer = await update(account, { first_name: 'Changed', [field]: field === 'dial_code' ? '+44' : '1' });
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toEqual([field]);
    }
    expect((await profile(account)).body.data.user).toEqual(before);
  });

  it('moves the email claim with the record: the new one taken, the old one free at once, another user’s refused with 409 code 7', async () => {
    const [ada, grace] = [await strongAccount(), await signUp(service, company)];
    const oldEmail = String(ada.registration.email);
    const newEmail = `ada.new.${ada.userId}@example.com`;
    const answer = await update(ada, { email: newEmail.toUpperCase() });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.user.email).toBe(newEmail);
    expect(await emailHolder(newEmail)).toBe(ada.userId);
    expect(await emailHolder(oldEmail)).toBeUndefined();
    // The old email is free for a new registration at once.
    expect((await signUp(service, company, { email: oldEmail })).userId).toBeTruthy();
    // Grace's email is hers.
    const taken = await update(ada, { email: grace.registration.email });
    expectFailure(taken, 409, 7);
    expect(taken.body.data.errors).toEqual([{ code: 7, field: 'email', detail: expect.any(String) }]);
    expect(await emailHolder(newEmail)).toBe(ada.userId);
    // The same email again changes nothing of the claims.
    expect((await update(ada, { email: newEmail, first_name: 'Ada' })).status).toBe(200);
    expect(await emailHolder(newEmail)).toBe(ada.userId);
  });

  it('gives a free email to exactly one of 20 users asking for it at once; the others get 409 code 7 and keep their own', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => strongAccount()));
    const wanted = `shared.${users[0]!.userId}@example.com`;
    const answers = await Promise.all(users.map((user) => update(user, { email: wanted })));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    for (const answer of answers) if (answer.status !== 200) expectFailure(answer, 409, 7);
    const winner = users[answers.indexOf(winners[0]!)]!;
    expect(await emailHolder(wanted)).toBe(winner.userId);
    for (const user of users) {
      const email = (await profile(user)).body.data.user.email;
      if (user === winner) {
        expect(email).toBe(wanted);
        expect(await emailHolder(String(user.registration.email))).toBeUndefined();
      } else {
        expect(email).toBe(user.registration.email);
        expect(await emailHolder(email)).toBe(user.userId);
      }
    }
  });

  it('keeps record and claims in step when one user changes their email twice at once', async () => {
    const ada = await strongAccount();
    const [first, second] = [`one.${ada.userId}@example.com`, `two.${ada.userId}@example.com`];
    const answers = await Promise.all([update(ada, { email: first }), update(ada, { email: second })]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const email = (await profile(ada)).body.data.user.email;
    expect([first, second]).toContain(email);
    // Exactly the record's email is claimed by Ada; the other and the original are free.
    expect(await emailHolder(email)).toBe(ada.userId);
    for (const other of [first, second, String(ada.registration.email)].filter((value) => value !== email)) {
      expect(await emailHolder(other)).toBeUndefined();
    }
  });
});

describe('POST /wallet/v3/user/profile/update from an SMS-strength session (held, contract 3.15 second reading)', () => {
  const texts = (account: Account) => outboxMessages(service.app.config.sms.outboxFile, `+1${account.registration.phone_number}`).length;
  const hold = service.app.config.phoneChangeHoldHours * 3600;
  const cancel = (authorization: string, changeId: string) =>
    invoke(service.handlers.userChangesCancel, {
      path: '/wallet/v3/user/changes/cancel',
      headers: { CompanyID: company.company_id, Authorization: authorization },
      body: { change_id: changeId },
    });

  it('a SIM swapper’s OTP session changes names, birth date and email only as a held change the owner cancels; the image at once', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const swapper = { ...account, authorization: await logIn(service, company, account) };
    const before = (await profile(swapper)).body.data.user;
    const warned = texts(account);
    const asked = Math.floor(service.clock.now() / 1000);
    const answer = await update(swapper, {
      first_name: 'Mallory',
      last_name: 'Swap',
      birth_date: 631152000000,
      email: `mallory.${account.userId}@example.com`,
      image: 'https://example.com/new.png',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toMatchObject({
      message: 'Profile change pending',
      pending: 1,
      change_id: expect.any(String),
    });
    // Held from the second the request was answered in: between the seconds it was sent and answered.
    expect(answer.body.data.effective_at - hold).toBeGreaterThanOrEqual(asked);
    expect(answer.body.data.effective_at - hold).toBeLessThanOrEqual(Math.floor(service.clock.now() / 1000));
    // What waits is not shown as changed; the image is.
    expect(answer.body.data.user).toEqual({ ...before, image: 'https://example.com/new.png', updated_date: expect.any(Number) });
    expect(texts(account)).toBe(warned + 1);
    expect(await emailHolder(`mallory.${account.userId}@example.com`)).toBeUndefined();
    // The owner sees it and cancels it from their strong session.
    const owner = { ...account, authorization: await strongSession(service, company, device) };
    const read = await profile(owner);
    expect(read.body.data.pending_changes).toEqual([expect.objectContaining({ change_id: answer.body.data.change_id, kind: 'profile' })]);
    expect((await cancel(owner.authorization, answer.body.data.change_id)).status).toBe(200);
    service.clock.advance(hold + 1);
    const later = { ...account, authorization: await strongSession(service, company, device) };
    const after = await profile(later);
    expect(after.body.data.user).toMatchObject({ first_name: before.first_name, last_name: before.last_name, email: before.email });
    expect(after.body.data.pending_changes).toEqual([]);
  });

  it('lands once due at the next profile read: names, birth date and email, the claim moved; a retry with its key answers the first', async () => {
    const account = await signUp(service, company);
    const oldEmail = String(account.registration.email);
    const newEmail = `held.${account.userId}@example.com`;
    const key = `held-${account.userId}`;
    const keyed = () =>
      invoke(service.handlers.userProfileUpdate, {
        path: '/wallet/v3/user/profile/update',
        headers: { ...headers(account), 'Idempotency-Key': key },
        body: { first_name: 'Augusta', birth_date: 631152000000, email: newEmail },
      });
    const first = await keyed();
    expect(first.body.data.pending).toBe(1);
    expect((await keyed()).body.data).toEqual(first.body.data);
    // Not due: the read shows it waiting, the record as it was.
    expect((await profile(account)).body.data.user.first_name).toBe(account.registration.first_name);
    service.clock.advance(hold);
    const late = { ...account, authorization: await logIn(service, company, account) };
    const landed = await profile(late);
    expect(landed.body.data.user).toMatchObject({ first_name: 'Augusta', birth_date: 631152000000, email: newEmail });
    expect(landed.body.data.pending_changes).toEqual([]);
    expect(await emailHolder(newEmail)).toBe(account.userId);
    expect(await emailHolder(oldEmail)).toBeUndefined();
  });

  it('refuses at once an email another user holds (409 code 7), and voids a held email another user claimed meanwhile', async () => {
    const [ada, grace] = [await signUp(service, company), await signUp(service, company)];
    expectFailure(await update(ada, { email: grace.registration.email }), 409, 7);
    expect((await profile(ada)).body.data.pending_changes).toEqual([]);
    const wanted = `wanted.${ada.userId}@example.com`;
    expect((await update(ada, { email: wanted })).body.data.pending).toBe(1);
    // Grace, from a strong session, takes it at once meanwhile.
    const strongGrace = await strongAccount();
    expect((await update(strongGrace, { email: wanted })).status).toBe(200);
    service.clock.advance(hold);
    const late = { ...ada, authorization: await logIn(service, company, ada) };
    const read = await profile(late);
    expect(read.body.data.user.email).toBe(ada.registration.email);
    expect(read.body.data.pending_changes).toEqual([]);
    expect(await emailHolder(wanted)).toBe(strongGrace.userId);
  });
});
