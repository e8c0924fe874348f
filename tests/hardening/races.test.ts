import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { emailClaimKey, otpKey, phoneClaimKey, phoneSendLimitKey, userKey } from '../../lib/store/keys.js';
import { referralCountIn } from '../../lib/store/referral-store.js';
import { createOwnTable } from '../harness/dynamodb-local.js';
import { identityProblems, type StoredItem, scanItems } from '../harness/table-snapshot.js';
import {
  type Answer,
  companyHourSent,
  fillCompanyHour,
  invoke,
  lastCodeSentTo,
  logIn,
  newCompany,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  sampleRegistration,
  signUp,
  testService,
  tokenStatus,
} from '../helpers.js';

// A table of the file's own: the checks below scan it.
const service = testService({}, { tableName: await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-races') });
const loginPhone = service.handlers.loginPhone;
const register = service.handlers.userRegister;
const verifyOtp = service.handlers.verifyOtp;

let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const registerIn = (target: Company, body: object) => invoke(register, { path: '/r', headers: { CompanyID: target.company_id }, body });
const send = (target: Company, body: object) => invoke(loginPhone, { path: '/l', headers: { CompanyID: target.company_id }, body });
const itemsOf = (target: Company) => scanItems(service.app.table.client, service.app.table.name, target.company_id);
const find = (items: StoredItem[], key: { pk: string; sk: string }) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
const usersIn = (items: StoredItem[]) => items.filter((item) => item.sk === 'PROFILE');
const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);
const count = (values: number[], wanted: number) => values.filter((value) => value === wanted).length;

describe('concurrent registrations', () => {
  it('of one email with six different phones: one user, the email claim is the winner’s, no loser left a phone claim', async () => {
    const email = `race.${randomPhoneNumber()}@example.com`;
    const bodies = Array.from({ length: 6 }, () => sampleRegistration({ email }));
    const answers = await Promise.all(bodies.map((body) => registerIn(company, body)));

    expect(count(statuses(answers), 200)).toBe(1);
    expect(count(statuses(answers), 409)).toBe(5);
    for (const loser of answers.filter((answer) => answer.status === 409)) {
      expect(loser.body.data.errors.map((error: { field: string }) => error.field)).toEqual(['email']);
    }
    const winner = answers.find((answer) => answer.status === 200)!.body.data.user_id;
    const items = await itemsOf(company);
    expect(find(items, emailClaimKey(company.company_id, email, 2))?.user_id).toBe(winner);
    const claimed = bodies.filter((body) => find(items, phoneClaimKey(company.company_id, `+1${String(body.phone_number)}`, 2)));
    expect(claimed).toHaveLength(1);
    expect(
      usersIn(items)
        .filter((user) => user.email === email)
        .map((user) => user.user_id),
    ).toEqual([winner]);
    expect(identityProblems(items, company.company_id)).toEqual([]);
  });

  it('with one referral code over colliding phones and emails: one user per identity, the referrer credited once per user', async () => {
    const own = await newCompany(service);
    const referrer = await signUp(service, own);
    const phones = [randomPhoneNumber(), randomPhoneNumber(), randomPhoneNumber()];
    const emails = phones.slice(0, 2).map((phone) => `grid.${phone}@example.com`);
    // Six sign-ups: every pairing of three phones with two emails, all with one referral code.
    const bodies = phones.flatMap((phone) =>
      emails.map((email) => sampleRegistration({ phone_number: phone, email, referral_code: referrer.referralCode })),
    );
    const answers = await Promise.all(bodies.map((body) => registerIn(own, body)));

    const won = answers.filter((answer) => answer.status === 200);
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(won.length).toBeLessThanOrEqual(2);
    expect(won.length + count(statuses(answers), 409)).toBe(6);

    const items = await itemsOf(own);
    const newUsers = usersIn(items).filter((user) => user.user_id !== referrer.userId);
    expect(newUsers.map((user) => user.user_id).sort()).toEqual(won.map((answer) => answer.body.data.user_id).sort());
    // No phone and no email belongs to two users.
    expect(new Set(newUsers.map((user) => user.phone_e164)).size).toBe(newUsers.length);
    expect(new Set(newUsers.map((user) => user.email)).size).toBe(newUsers.length);
    expect(referralCountIn(items.filter((item) => item.pk === userKey(own.company_id, referrer.userId).pk))).toBe(won.length);
    expect(items.filter((item) => item.sk.startsWith('NOTIF#'))).toHaveLength(won.length);
    expect(identityProblems(items, own.company_id)).toEqual([]);
  });
});

describe('concurrent verifications', () => {
  // (tests/otp/otp.test.ts once sent the same 20 and checked only the answers.)
  it('of one right code, 20 at once: one session, exactly one new token stored, the code used up', async () => {
    const account = await signUp(service, company);
    const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    expect((await send(company, target)).status).toBe(200);
    const code = lastCodeSentTo(service, `+1${target.phone_number}`);
    const sessionsOf = (items: StoredItem[]) =>
      items.filter((item) => item.pk === userKey(company.company_id, account.userId).pk && item.sk.startsWith('SESSION#'));
    const tokensBefore = sessionsOf(await itemsOf(company));

    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        invoke(verifyOtp, { path: '/v', headers: { CompanyID: company.company_id }, body: { ...target, otp: code } }),
      ),
    );
    expect(count(statuses(answers), 200)).toBe(1);
    // The others find it used up (10), or its 5 tries taken by attempts ahead of them (11).
    for (const answer of answers.filter((a) => a.status !== 200)) expect([[10], [11]]).toContainEqual(answer.body.error);

    const items = await itemsOf(company);
    const tokensAfter = sessionsOf(items);
    expect(tokensAfter.length - tokensBefore.length).toBe(1);
    // Used up: kept, marked with the attempt that used it, until its TTL.
    expect(find(items, otpKey(company.company_id, `+1${target.phone_number}`, 2, 1))).toMatchObject({ consumed_by: expect.any(String) });
  });
});

describe('concurrent sends', () => {
  it('to one phone, six at a time while the clock advances: one per interval, never more than the hourly limit', async () => {
    const own = await newCompany(service);
    const phone = randomPhoneNumber();
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    const start = Math.floor(Date.now() / 1000 / 3600) * 3600 + 60;
    const perRound: number[] = [];
    for (let round = 0; round < service.app.config.otp.sendsPerPhonePerHour + 2; round++) {
      service.clock.freeze(start + round * (service.app.config.otp.sendIntervalSeconds + 1));
      const answers = await Promise.all(Array.from({ length: 6 }, () => send(own, target)));
      expect(count(statuses(answers), 200) + count(statuses(answers), 429)).toBe(6);
      perRound.push(count(statuses(answers), 200));
    }
    // One send in each of the first five intervals, then the hour is full.
    expect(perRound).toEqual([1, 1, 1, 1, 1, 0, 0]);

    const items = await itemsOf(own);
    expect(find(items, phoneSendLimitKey(own.company_id, `+1${phone}`))).toMatchObject({ window_count: 5, window_start: start });
    expect(companyHourSent(items, own.company_id, Math.floor(start / 3600))).toBe(5);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)).toHaveLength(5);
  });

  it('to ten phones against the company’s hourly ceiling: exactly the room left is sent, refused phones keep no count', async () => {
    const own = await newCompany(service);
    const now = Math.floor(Date.now() / 1000 / 3600) * 3600 + 1800;
    service.clock.freeze(now);
    const hour = Math.floor(now / 3600);
    const ceiling = service.app.config.otp.sendsPerCompanyPerHour;
    // Three sends left, one in each of three shards: most sends fall over from a full shard to find them.
    await fillCompanyHour(service, own.company_id, hour, 3);

    const phones = Array.from({ length: 10 }, () => randomPhoneNumber());
    const answers = await Promise.all(
      phones.map((phone) => send(own, { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 })),
    );
    expect(count(statuses(answers), 200)).toBe(3);
    expect(count(statuses(answers), 429)).toBe(7);

    const items = await itemsOf(own);
    expect(companyHourSent(items, own.company_id, hour)).toBe(ceiling);
    phones.forEach((phone, index) => {
      const counter = find(items, phoneSendLimitKey(own.company_id, `+1${phone}`));
      const messages = outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`);
      if (answers[index]!.status === 200) {
        expect(counter).toMatchObject({ window_count: 1 });
        expect(messages).toHaveLength(1);
      } else {
        expect(counter).toBeUndefined();
        expect(messages).toEqual([]);
      }
    });
    expect(items.filter((item) => item.sk === 'OTP')).toHaveLength(3);
  });
});

describe('sessions and reclaims', () => {
  it('a reclaim racing logins of the old holder: the holder ends with no live session, however they interleave', async () => {
    const own = await newCompany(service);
    for (let round = 0; round < 4; round++) {
      const holder = await signUp(service, own);
      const phone = String(holder.registration.phone_number);
      const proof = await provePhone(service, own, phone);
      // The holder has a login code waiting (sent before the reclaim), and asks for a session with it at the moment of the reclaim.
      service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
      const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 };
      expect((await send(own, target)).status).toBe(200);
      const code = lastCodeSentTo(service, `+1${phone}`);
      const [registered, login] = await Promise.all([
        registerIn(own, sampleRegistration({ phone_number: phone, phone_verification_token: proof })),
        invoke(verifyOtp, { path: '/v', headers: { CompanyID: own.company_id }, body: { ...target, otp: code } }),
      ]);
      const items = await itemsOf(own);
      const holderSessions = items.filter(
        (item) =>
          item.pk === userKey(own.company_id, holder.userId).pk && item.sk.startsWith('SESSION#') && item.ended_reason === undefined,
      );
      if (registered.status === 200) {
        // Reclaimed: whatever the login got, no session of the holder survives, and the login's token (if any) fails.
        expect(holderSessions).toEqual([]);
        if (login.status === 200) expect(await tokenStatus(service, own, `Token ${login.body.data.token.token}`)).toBe(401);
        expect(find(items, userKey(own.company_id, holder.userId))).toMatchObject({ status_id: 3 });
      } else {
        // The login won and proved the phone first: the holder is verified and keeps it (409).
        expect(registered.status).toBe(409);
        expect(login.status).toBe(200);
        expect(find(items, userKey(own.company_id, holder.userId))).toMatchObject({ status_id: 1, phone_verified: 1 });
      }
      expect(identityProblems(items, own.company_id)).toEqual([]);
      service.clock.reset();
    }
  });

  it('logout of all sessions racing a new login: every session from before ends, a session issued after the logout survives', async () => {
    const own = await newCompany(service);
    const account = await signUp(service, own);
    const before = await logIn(service, own, account);
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    expect((await send(own, target)).status).toBe(200);
    const code = lastCodeSentTo(service, `+1${target.phone_number}`);
    const [loggedOut, login] = await Promise.all([
      invoke(service.handlers.logout, {
        path: '/o',
        headers: { CompanyID: own.company_id, Authorization: before },
        body: { scope: 'all' },
      }),
      invoke(verifyOtp, { path: '/v', headers: { CompanyID: own.company_id }, body: { ...target, otp: code } }),
    ]);
    expect([loggedOut.status, login.status]).toEqual([200, 200]);
    expect([await tokenStatus(service, own, account.authorization), await tokenStatus(service, own, before)]).toEqual([401, 401]);
    // The new session either began before the logout's read (ended, and counted) or after it (alive, not counted).
    const newSession = await tokenStatus(service, own, `Token ${login.body.data.token.token}`);
    expect(loggedOut.body.data.revoked).toBe(newSession === 401 ? 3 : 2);
    service.clock.reset();
  });
});
