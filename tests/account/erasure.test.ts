// Erasure (API contract 3.11): once a deletion's time has come the eraser leaves a record with the
// user id, company, type, status 5 and dates, and nothing personal in any item of the table. It
// finds due accounts without a Scan, page by page, and a run cut off is finished by the next one.
import { randomInt } from 'node:crypto';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { accountsEraseHandler } from '../../functions/accounts-erase.js';
import { eraseDueAccounts } from '../../lib/account/erasure.js';
import type { Company } from '../../lib/companies/companies.js';
import { markErasing } from '../../lib/store/erasure-store.js';
import { emailClaimKey, type ItemKey, otpKey, phoneClaimKey, phoneFailuresKey, phoneSendLimitKey, userKey } from '../../lib/store/keys.js';
import { getUserWithReferralCount } from '../../lib/store/referral-store.js';
import { main as eraseAccounts } from '../../scripts/erase-accounts.js';
import { main as restoreUser } from '../../scripts/restore-user.js';
import { PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { createOwnTable } from '../harness/dynamodb-local.js';
import {
  type Account,
  codeIn,
  expectFailure,
  type InProcessService,
  invoke,
  lambdaContext,
  logIn,
  newCompany,
  outboxMessages,
  sampleRegistration,
  signUp,
  testEnvironment,
  testService,
} from '../helpers.js';
import { deleteHeldAndLand } from './deletion-helpers.js';

// Deletions here are due at once, in a table of this file's own: the scheduled eraser visits every
// company of its table, and the Scan below sees this file's items only.
const SETTINGS = { ACCOUNT_ERASE_AFTER_DAYS: '0' };
let table: string;
let service: InProcessService;
let company: Company;
const ownService = () => testService(SETTINGS, { tableName: table });

beforeAll(async () => {
  table = await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-erasure');
  service = ownService();
  company = await newCompany(service);
});

const forever = () => Number.POSITIVE_INFINITY;

async function deleteAccount(on: InProcessService, inCompany: Company, authorization: string): Promise<void> {
  const answer = await invoke(on.handlers.userDelete, {
    path: '/wallet/v3/user/delete',
    headers: { CompanyID: inCompany.company_id, Authorization: authorization },
    body: {},
  });
  if (answer.status !== 200) throw new Error(`delete answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

async function userItem(on: InProcessService, companyId: string, userId: string) {
  const { Item } = await on.app.table.client.send(
    new GetCommand({ TableName: on.app.table.name, Key: userKey(companyId, userId), ConsistentRead: true }),
  );
  return Item;
}

/** Every item of the whole table, as JSON text. */
async function scanTable(): Promise<string[]> {
  const texts: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.app.table.client.send(new ScanCommand({ TableName: service.app.table.name, ExclusiveStartKey: start }));
    texts.push(...(page.Items ?? []).map((entry) => JSON.stringify(entry)));
    start = page.LastEvaluatedKey;
  } while (start);
  return texts;
}

function operatorIo(stdout: string[]) {
  return {
    env: testEnvironment(SETTINGS, { tableName: table }),
    out: (line: string) => stdout.push(line),
    err: () => {},
    input: async () => '',
  };
}

describe('the eraser', () => {
  it('leaves status 5 and a record of ids and dates, and no personal value anywhere in the table', async () => {
    const referrer = await signUp(service, company);
    const unique = randomInt(1e9);
    const personal = {
      first_name: `Erasable${unique}`,
      last_name: `Person${unique}`,
      birth_date: 631152000000 + randomInt(1e6) * 1000,
      image: `https://example.com/erasable-${unique}.png`,
      // Six decimals ending in 1 to 9: stored as a number, a trailing 0 would be dropped and the value not found as written.
      location_point: `12.${10000 * (10 + randomInt(80)) + 1 + randomInt(9)},77.${10000 * (10 + randomInt(80)) + 1 + randomInt(9)}`,
      device_type: 1,
      device_id: `device-of-${unique}`,
      device_unique_id: `unique-of-${unique}`,
      referral_code: referrer.referralCode,
    };
    const { account, device } = await signUpWithDevice(service, company, personal);
    // Someone the user referred, and a login by OTP (a code, send counters) and by PIN (a nonce).
    const referred = await signUp(service, company, { referral_code: account.referralCode });
    await logIn(service, company, account);
    const pinSession = await pinLogin(service, company, device, PINS.login_pin);
    expect(pinSession.status, JSON.stringify(pinSession.body)).toBe(200);
    const countBefore = (await getUserWithReferralCount(service.app.table, company.company_id, referrer.userId))?.referralCount;
    expect(countBefore).toBe(1);

    const record = await userItem(service, company.company_id, account.userId);
    const values = [
      personal.first_name,
      personal.last_name,
      String(personal.birth_date),
      personal.image,
      ...personal.location_point.split(','),
      personal.device_id,
      personal.device_unique_id,
      String(account.registration.email),
      `+1${account.registration.phone_number}`,
      String(account.registration.phone_number),
      account.referralCode,
      device.publicKey,
      // Derived from the user: their device's nonces are kept under it.
      device.deviceKey,
      record?.password_hash,
      record?.login_pin_hash,
      record?.transaction_pin_hash,
    ];
    expect(values.every((value) => typeof value === 'string' && value.length > 5)).toBe(true);
    // Before: they are there (the referrer's notice names the user, the device lists its labels).
    const before = (await scanTable()).join('\n');
    for (const value of values) expect(before, `${value} before`).toContain(value);

    // A PIN login under 10 minutes old is fresh proof of the holder too.
    await deleteAccount(service, company, `Token ${pinSession.body.data.token.token}`);
    const erasingFrom = Math.floor(service.clock.now() / 1000);
    const outcome = await eraseDueAccounts(service.app, { companyId: company.company_id, timeLeftMs: forever });
    expect(outcome).toEqual({ erased: 1, failed: 0, more: false });

    const erased = await userItem(service, company.company_id, account.userId);
    const { pk, sk, erased_at: erasedAt, ...kept } = erased ?? {};
    expect(kept).toEqual({
      user_id: account.userId,
      company_id: company.company_id,
      user_type: 2,
      status_id: 5,
      created_at: record?.created_at,
    });
    expect(erasedAt).toBeGreaterThanOrEqual(erasingFrom);
    expect(erasedAt).toBeLessThanOrEqual(Math.floor(service.clock.now() / 1000));

    const after = await scanTable();
    for (const value of values) {
      expect(
        after.filter((text) => text.includes(value as string)),
        `${value} after`,
      ).toEqual([]);
    }
    // Nothing of the user's partition is left but the record.
    expect(after.filter((text) => text.includes(`"pk":"${userKey(company.company_id, account.userId).pk}"`))).toHaveLength(1);

    // The referrer's count stays; the erased user's code no longer attributes a sign-up.
    expect((await getUserWithReferralCount(service.app.table, company.company_id, referrer.userId))?.referralCount).toBe(1);
    expect((await userItem(service, company.company_id, referred.userId))?.referred_by).toBe(account.userId);
    const attributed = await invoke(service.handlers.userRegister, {
      path: '/wallet/v3/auth/user_register',
      headers: { CompanyID: company.company_id },
      body: sampleRegistration({ referral_code: account.referralCode }),
    });
    expectFailure(attributed, 400, 8);

    // Too late for a restore.
    const stdout: string[] = [];
    expect(await restoreUser(['--company', company.company_id, '--user', account.userId], operatorIo(stdout))).toBe(1);
  });

  it('finishes at the next run an erasure cut off half way, and leaves a restored user alone', async () => {
    const { account: half, device: halfDevice } = await signUpWithDevice(service, company);
    await deleteAccount(service, company, await strongSession(service, company, halfDevice));
    // A run that stopped after its first step: status 5, the data still there.
    expect(await markErasing(service.app.table, company.company_id, half.userId, Math.floor(service.clock.now() / 1000))).toBe(true);
    expect(await userItem(service, company.company_id, half.userId)).toMatchObject({ status_id: 5, first_name: 'Ada' });

    // Deleted by a container of a stage that keeps 30 days: restorable, as a deletion past its erase_after is not.
    const keeping = testService({}, { tableName: table });
    const { account: restored, device: restoredDevice } = await signUpWithDevice(keeping, company);
    await deleteAccount(keeping, company, await strongSession(keeping, company, restoredDevice));
    const stdout: string[] = [];
    expect(await restoreUser(['--company', company.company_id, '--user', restored.userId], operatorIo(stdout))).toBe(0);

    const outcome = await eraseDueAccounts(service.app, { companyId: company.company_id, timeLeftMs: forever });
    expect(outcome).toMatchObject({ erased: 1, failed: 0 });
    expect(await userItem(service, company.company_id, half.userId)).not.toHaveProperty('first_name');
    expect((await userItem(service, company.company_id, restored.userId))?.status_id).toBe(1);
  });

  it('frees the phone and email a held deletion kept claimed until erasure (contract 3.15, second reading)', async () => {
    const own = ownService();
    const kept = await newCompany(own);
    const account = await signUp(own, kept);
    await deleteHeldAndLand(own, kept, account);
    const claim = (key: ItemKey) =>
      own.app.table.client.send(new GetCommand({ TableName: own.app.table.name, Key: key, ConsistentRead: true }));
    const phone = phoneClaimKey(kept.company_id, `+1${account.registration.phone_number}`, 2);
    const email = emailClaimKey(kept.company_id, String(account.registration.email), 2);
    expect((await claim(phone)).Item).toMatchObject({ user_id: account.userId, status_id: 4 });
    expect((await claim(email)).Item).toMatchObject({ user_id: account.userId });
    expect(await eraseDueAccounts(own.app, { companyId: kept.company_id, timeLeftMs: forever })).toMatchObject({ erased: 1 });
    expect((await claim(phone)).Item).toBeUndefined();
    expect((await claim(email)).Item).toBeUndefined();
    // The number and the email are free for a new registration.
    expect(
      (await signUp(own, kept, { phone_number: account.registration.phone_number, email: account.registration.email })).userId,
    ).toBeTruthy();
  });

  it('leaves the code, sends and wrong codes of whoever took the number up after the deletion freed it', async () => {
    const own = ownService();
    const freed = await newCompany(own);
    const { account, device } = await signUpWithDevice(own, freed);
    const phoneE164 = `+1${account.registration.phone_number}`;
    const headers = { CompanyID: freed.company_id };
    const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');
    // The user's own login by code just before, after one wrong code: their code and counters go
    // with them, and the window of wrong codes they opened stays open for the day.
    const login = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    expect((await invoke(own.handlers.loginPhone, { path: '/l', headers, body: login })).status).toBe(200);
    const loginCode = codeIn(outboxMessages(own.app.config.sms.outboxFile, phoneE164).at(-1));
    expectFailure(await invoke(own.handlers.verifyOtp, { path: '/v', headers, body: { ...login, otp: wrongFor(loginCode) } }), 400, 9);
    expect((await invoke(own.handlers.verifyOtp, { path: '/v', headers, body: { ...login, otp: loginCode } })).status).toBe(200);
    await deleteAccount(own, freed, await strongSession(own, freed, device));
    // Someone registering the freed number, once a send to it is allowed again: a code sent, one
    // wrong code typed, counted in the window the user opened.
    own.clock.advance(own.app.config.otp.sendIntervalSeconds + 1);
    const target = { ...login, otp_type: 2 };
    expect((await invoke(own.handlers.loginPhone, { path: '/l', headers, body: target })).status).toBe(200);
    const code = codeIn(outboxMessages(own.app.config.sms.outboxFile, phoneE164).at(-1));
    expectFailure(await invoke(own.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: wrongFor(code) } }), 400, 9);
    const item = async (key: ItemKey) =>
      (await own.app.table.client.send(new GetCommand({ TableName: own.app.table.name, Key: key, ConsistentRead: true }))).Item;
    const before = {
      code: await item(otpKey(freed.company_id, phoneE164, 2, 2)),
      sends: await item(phoneSendLimitKey(freed.company_id, phoneE164)),
      failures: await item(phoneFailuresKey(freed.company_id, phoneE164)),
    };
    // The hour's window counts the user's send and the newcomer's: the newcomer's sends were last.
    expect(before.sends).toMatchObject({ window_count: 2 });
    expect(before.failures?.tries?.size).toBe(2);

    expect(await eraseDueAccounts(own.app, { companyId: freed.company_id, timeLeftMs: forever })).toMatchObject({ erased: 1 });
    // The erased user's login code is gone; the newcomer's items are as they were.
    expect(await item(otpKey(freed.company_id, phoneE164, 2, 1))).toBeUndefined();
    expect(await item(otpKey(freed.company_id, phoneE164, 2, 2))).toEqual(before.code);
    expect(await item(phoneSendLimitKey(freed.company_id, phoneE164))).toEqual(before.sends);
    expect(await item(phoneFailuresKey(freed.company_id, phoneE164))).toEqual(before.failures);
    const verified = await invoke(own.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: code } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  });

  it('is paged and resumable: a run that runs out of time leaves the rest to the next', async () => {
    const own = ownService();
    const paged = await newCompany(own);
    const users: Account[] = [];
    for (let index = 0; index < 3; index++) {
      const { account, device: accountDevice } = await signUpWithDevice(own, paged);
      await deleteAccount(own, paged, await strongSession(own, paged, accountDevice));
      users.push(account);
    }
    // Time for one page only: one page of one.
    let checks = 0;
    const onePage = () => (checks++ === 0 ? 60_000 : 0);
    const first = await eraseDueAccounts(own.app, { companyId: paged.company_id, pageSize: 1, timeLeftMs: onePage });
    expect(first).toEqual({ erased: 1, failed: 0, more: true });
    const statuses = async () => Promise.all(users.map(async (user) => (await userItem(own, paged.company_id, user.userId))?.status_id));
    expect((await statuses()).sort()).toEqual([4, 4, 5]);
    const second = await eraseDueAccounts(own.app, { companyId: paged.company_id, pageSize: 1, timeLeftMs: forever });
    expect(second).toEqual({ erased: 2, failed: 0, more: false });
    expect(await statuses()).toEqual([5, 5, 5]);
  });

  it('runs as npm run accounts:erase for one company, and as the scheduled function', async () => {
    // Its own service with the system's clock, as the command has.
    const own = ownService();
    const target = await newCompany(own);
    const { account: byCommand, device: byCommandDevice } = await signUpWithDevice(own, target);
    await deleteAccount(own, target, await strongSession(own, target, byCommandDevice));
    const stdout: string[] = [];
    expect(await eraseAccounts(['--company', target.company_id], operatorIo(stdout))).toBe(0);
    expect(JSON.parse(stdout.at(-1)!)).toEqual({ company_id: target.company_id, erased: 1, failed: 0 });
    expect((await userItem(own, target.company_id, byCommand.userId))?.status_id).toBe(5);
    expect(await eraseAccounts(['--company', 'nope'], operatorIo(stdout))).toBe(2);

    const { account: byschedule, device: byscheduleDevice } = await signUpWithDevice(own, target);
    await deleteAccount(own, target, await strongSession(own, target, byscheduleDevice));
    const run = await accountsEraseHandler(own.app)({}, lambdaContext(120_000));
    expect(run.erased).toBeGreaterThanOrEqual(1);
    expect((await userItem(own, target.company_id, byschedule.userId))?.status_id).toBe(5);
  });
});
