// A phone change asked for from a session begun by OTP login (API contract 3.11, amended in round 5),
// against DynamoDB Local: it takes the login PIN (counted toward its lock), then waits
// PHONE_CHANGE_HOLD_HOURS, told to the old number and the user's list; any live session cancels it;
// the first OTP login to the new number after the hold (and within 7 days) completes it in one
// transaction and answers the session, taking the number from a holder who never proved it (contract
// 6); a number a proven user took meanwhile voids it.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { userPhoneChange } from '../../lib/account/phone-change.js';
import { userPhoneChangeCancelEndpoint } from '../../lib/api/user-phone-change-cancel-endpoint.js';
import { userPhoneChangeEndpoint } from '../../lib/api/user-phone-change-endpoint.js';
import { verifyOtpEndpoint } from '../../lib/api/verify-otp-endpoint.js';
import type { Company } from '../../lib/companies/companies.js';
import { BUILT_IN_WARNING_TEXTS, warningMessage } from '../../lib/companies/security-warning-texts.js';
import { verifyOtp } from '../../lib/otp/verify-otp.js';
import { userChangesCancel as userPhoneChangeCancel } from '../../lib/pending-changes/user-changes-cancel.js';
import { authenticate } from '../../lib/sessions/access-tokens.js';
import { textDispatchFor } from '../../lib/sms/sms-delivery.js';
import { getPendingPhoneChange, getPhoneChangeIndex } from '../../lib/store/pending-change-store.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { getEmailClaimHolder, getPhoneClaim, getUser } from '../../lib/store/user-store.js';
import { parseInput } from '../../lib/validation.js';
import {
  freshOtpSession,
  loginPinTries,
  PINS,
  sessionOf,
  noticeEvents as sharedNoticeEvents,
  signUpWithDevice,
  tokenWorks,
} from '../devices/device-helpers.js';
import {
  type Account,
  codeIn,
  expectFailure,
  invoke,
  newCompany,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  signUp,
  testService,
} from '../helpers.js';
import { deleteHeldAndLand } from './deletion-helpers.js';

const service = testService();
let company: Company;
const HOLD_SECONDS = 24 * 3600;
const WEEK_SECONDS = 7 * 24 * 3600;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const change = (authorization: string, body: Record<string, unknown>) =>
  invoke(service.handlers.userPhoneChange, { path: '/wallet/v3/user/phone/change', headers: headers(authorization), body });
const cancel = (authorization: string, changeId: string) =>
  invoke(service.handlers.userPhoneChangeCancel, { path: '/c', headers: headers(authorization), body: { change_id: changeId } });
const profile = (authorization: string) =>
  invoke(service.handlers.userProfile, { method: 'GET', path: '/p', headers: headers(authorization) });
const e164 = (phoneNumber: string) => `+1${phoneNumber}`;
const outbox = (phoneNumber: string) => outboxMessages(service.app.config.sms.outboxFile, e164(phoneNumber));
const noticeEvents = (userId: string) => sharedNoticeEvents(service, company, userId);
const nextSend = () => service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
const target = (phoneNumber: string) => ({ dial_code: '+1', phone_number: phoneNumber, user_type: 2, otp_type: 1 });

/** A customer with a login PIN, and a session begun by OTP login just now. */
async function withOtpSession(): Promise<{ account: Account; fresh: string; oldNumber: string }> {
  const { account } = await signUpWithDevice(service, company);
  const fresh = await freshOtpSession(service, company, account);
  return { account, fresh, oldNumber: String(account.registration.phone_number) };
}

/** The body of a change to a new number, with a proof verified under this token, and the PIN given. */
async function changeBody(phoneNumber: string, authorization: string, pin: string | null = PINS.login_pin) {
  nextSend();
  const proof = await provePhone(service, company, phoneNumber, { authorization });
  return { dial_code: '+1', phone_number: phoneNumber, phone_verification_token: proof, ...(pin ? { login_pin: pin } : {}) };
}

/** login_phone to a number: the answer, and the code it sent there (undefined: none). */
async function sendLogin(phoneNumber: string): Promise<{ status: number; code: string | undefined }> {
  nextSend();
  const before = outbox(phoneNumber).length;
  const sent = await invoke(service.handlers.loginPhone, {
    path: '/l',
    headers: { CompanyID: company.company_id },
    body: target(phoneNumber),
  });
  const after = outbox(phoneNumber);
  return { status: sent.status, code: after.length > before ? codeIn(after.at(-1)) : undefined };
}

const refresh = (account: Account) =>
  invoke(service.handlers.tokenRefresh, {
    path: '/t',
    headers: { CompanyID: company.company_id },
    body: { refresh_token: account.refreshToken },
  });

const verify = (phoneNumber: string, otp: string) =>
  invoke(service.handlers.verifyOtp, { path: '/v', headers: { CompanyID: company.company_id }, body: { ...target(phoneNumber), otp } });

describe('a phone change from a session begun by OTP login', () => {
  it('takes the login PIN: absent 400 code 14, wrong 400 code 17 (counted), locked 18; nothing moves', async () => {
    const { account, fresh } = await withOtpSession();
    const newNumber = randomPhoneNumber();
    const body = await changeBody(newNumber, fresh, null);
    const absent = await change(fresh, body);
    expectFailure(absent, 400, 14);
    expect(absent.body.data.errors[0].field).toBe('login_pin');
    const wrong = await change(fresh, { ...body, login_pin: '9999' });
    expectFailure(wrong, 400, 17);
    expect(await loginPinTries(service, company, account)).toBe(1);
    for (let attempt = 1; attempt < service.app.config.pinMaxFailures; attempt++) {
      await change(fresh, { ...body, login_pin: '9999' });
    }
    expectFailure(await change(fresh, { ...body, login_pin: PINS.login_pin }), 400, 18);
    expect((await getUser(service.app.table, company.company_id, account.userId, true))!.phone_number).toBe(
      account.registration.phone_number,
    );
    expect(await getPendingPhoneChange(service.app.table, company.company_id, account.userId, true)).toBeUndefined();
  });

  it('pends: the answer, notice 9, the old number told, the profile shows it; a login to the new number before the hold sends nothing', async () => {
    const { account, fresh, oldNumber } = await withOtpSession();
    const newNumber = randomPhoneNumber();
    const toldBefore = outbox(oldNumber).length;
    const body = await changeBody(newNumber, fresh);
    // The service's clock runs on: the request's second lies between these two.
    const before = Math.floor(service.clock.now() / 1000);
    const answer = await change(fresh, body);
    const after = Math.floor(service.clock.now() / 1000);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({
      message: 'Phone number change pending',
      pending: 1,
      change_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      effective_at: expect.any(Number),
    });
    expect(answer.body.data.effective_at).toBeGreaterThanOrEqual(before + HOLD_SECONDS);
    expect(answer.body.data.effective_at).toBeLessThanOrEqual(after + HOLD_SECONDS);
    const { change_id: changeId, effective_at: effectiveAt } = answer.body.data;
    expect(await noticeEvents(account.userId)).toContain(9);
    expect(outbox(oldNumber)).toHaveLength(toldBefore + 1);
    expect(outbox(oldNumber).at(-1)).toBe(warningMessage(BUILT_IN_WARNING_TEXTS.phone, company.name));
    expect((await profile(fresh)).body.data.pending_phone_change).toEqual({
      change_id: changeId,
      effective_at: effectiveAt,
      phone_last4: newNumber.slice(-4),
    });
    // Nothing moved yet; the sessions live; the proof is used up.
    expect((await getUser(service.app.table, company.company_id, account.userId, true))!.phone_number).toBe(oldNumber);
    expect(await getPhoneClaim(service.app.table, company.company_id, e164(newNumber), 2, true)).toBeUndefined();
    expect(await tokenWorks(service, company, account.authorization)).toBe(true);
    // Before the hold, the new number is no one's: the enumeration-safe 200 and no SMS.
    service.clock.advance(HOLD_SECONDS - 120);
    expect(await sendLogin(newNumber)).toEqual({ status: 200, code: undefined });
  });

  it('completes at the first OTP login to the new number after the hold: the session answered, claims moved, other sessions ended, notice 6, old number told', async () => {
    const { account, fresh, oldNumber } = await withOtpSession();
    const newNumber = randomPhoneNumber();
    const pending = await change(fresh, await changeBody(newNumber, fresh));
    expect(pending.body.data.pending).toBe(1);
    service.clock.advance(HOLD_SECONDS);
    expect(await sessionOf(service, company, account, fresh)).toBeDefined();
    const sent = await sendLogin(newNumber);
    expect(sent.status).toBe(200);
    expect(sent.code).toMatch(/^\d{6}$/);
    const toldBefore = outbox(oldNumber).length;
    const login = await verify(newNumber, sent.code!);
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.data.user_id).toBe(account.userId);
    const session = `Token ${login.body.data.token.token}`;
    const user = (await getUser(service.app.table, company.company_id, account.userId, true))!;
    expect(user).toMatchObject({ phone_number: newNumber, phone_e164: e164(newNumber), phone_verified: 1 });
    expect((await getPhoneClaim(service.app.table, company.company_id, e164(newNumber), 2, true))?.user_id).toBe(account.userId);
    expect(await getPhoneClaim(service.app.table, company.company_id, e164(oldNumber), 2, true)).toBeUndefined();
    expect(await tokenWorks(service, company, session)).toBe(true);
    // Every other session ended (their items marked: their access tokens have expired by now anyway).
    expect(await sessionOf(service, company, account, fresh)).toBeUndefined();
    expect(await sessionOf(service, company, account, account.authorization)).toBeUndefined();
    expect(await noticeEvents(account.userId)).toContain(6);
    expect(outbox(oldNumber)).toHaveLength(toldBefore + 1);
    expect(await getPendingPhoneChange(service.app.table, company.company_id, account.userId, true)).toBeUndefined();
    expect(await getPhoneChangeIndex(service.app.table, company.company_id, e164(newNumber), 2, true)).toBeUndefined();
    expect((await profile(session)).body.data.pending_phone_change).toBeNull();
  });

  it('is void after 7 days past effective_at: absent from the profile, a login to the new number sends nothing', async () => {
    const { account, fresh } = await withOtpSession();
    const newNumber = randomPhoneNumber();
    expect((await change(fresh, await changeBody(newNumber, fresh))).status).toBe(200);
    service.clock.advance(HOLD_SECONDS + WEEK_SECONDS);
    expect(await sendLogin(newNumber)).toEqual({ status: 200, code: undefined });
    // The item is still there (no emulator deletes TTL items): read as absent (with a new session: the old one's access token expired).
    expect((await profile(await freshOtpSession(service, company, account))).body.data.pending_phone_change).toBeNull();
  });

  it('is cancelled by any other live session: notice 10; a login after the hold sends nothing; unknown, other users’ or cancelled ids are 404 code 6', async () => {
    const { account, fresh } = await withOtpSession();
    const other = await withOtpSession();
    const newNumber = randomPhoneNumber();
    const changeId = (await change(fresh, await changeBody(newNumber, fresh))).body.data.change_id;
    expectFailure(await cancel(account.authorization, '0'.repeat(32)), 404, 6);
    expectFailure(await cancel(other.fresh, changeId), 404, 6);
    // The registration's session, begun days before, may cancel.
    const cancelled = await cancel(account.authorization, changeId);
    expect(cancelled.body).toEqual({ success: 1, error: [], data: { message: 'Phone number change cancelled', kind: 'phone' } });
    expect(await noticeEvents(account.userId)).toContain(10);
    expectFailure(await cancel(account.authorization, changeId), 404, 6);
    expect((await profile(fresh)).body.data.pending_phone_change).toBeNull();
    service.clock.advance(HOLD_SECONDS);
    expect(await sendLogin(newNumber)).toEqual({ status: 200, code: undefined });
  });

  it('ends with the account’s deletion: the change void and its number free for another user’s change (a restore finds nothing to bring back)', async () => {
    const { account, fresh } = await withOtpSession();
    const other = await withOtpSession();
    const newNumber = randomPhoneNumber();
    const changeId = (await change(fresh, await changeBody(newNumber, fresh))).body.data.change_id;
    // From an OTP session the deletion is held, and lands once due (contract 3.15, second reading).
    nextSend();
    await deleteHeldAndLand(service, company, account);
    expect(await getPendingPhoneChange(service.app.table, company.company_id, account.userId, true)).toMatchObject({
      change_id: changeId,
      ended_reason: 'void',
    });
    expect(await getPhoneChangeIndex(service.app.table, company.company_id, e164(newNumber), 2, true)).toBeUndefined();
    // Another user may now wait on the number (409 code 7 while the deleted user's index item held it).
    expect((await change(other.fresh, await changeBody(newNumber, other.fresh))).status).toBe(200);
  });

  it('a new request replaces the pending one; the first number is free again', async () => {
    const { account, fresh } = await withOtpSession();
    const [first, second] = [randomPhoneNumber(), randomPhoneNumber()];
    const firstId = (await change(fresh, await changeBody(first, fresh))).body.data.change_id;
    const replaced = await change(fresh, await changeBody(second, fresh));
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.change_id).not.toBe(firstId);
    expect((await profile(fresh)).body.data.pending_phone_change.phone_last4).toBe(second.slice(-4));
    expectFailure(await cancel(fresh, firstId), 404, 6);
    expect(await getPhoneChangeIndex(service.app.table, company.company_id, e164(first), 2, true)).toBeUndefined();
    service.clock.advance(HOLD_SECONDS);
    expect((await sendLogin(first)).code).toBeUndefined();
    const sent = await sendLogin(second);
    expect((await verify(second, sent.code!)).body.data.user_id).toBe(account.userId);
  });

  it('refuses a number another user’s pending change waits on, or a held one (409 code 7)', async () => {
    const [ada, grace] = [await withOtpSession(), await withOtpSession()];
    const number = randomPhoneNumber();
    expect((await change(ada.fresh, await changeBody(number, ada.fresh))).status).toBe(200);
    expectFailure(await change(grace.fresh, await changeBody(number, grace.fresh)), 409, 7);
    const held = String(ada.account.registration.phone_number);
    expectFailure(await change(grace.fresh, await changeBody(held, grace.fresh)), 409, 7);
  });

  it('takes the new number from a holder who registered it during the hold without proving it: holder status 3, their sessions ended, email free', async () => {
    const { account, fresh, oldNumber } = await withOtpSession();
    const newNumber = randomPhoneNumber();
    expect((await change(fresh, await changeBody(newNumber, fresh))).status).toBe(200);
    const holder = await signUp(service, company, { phone_number: newNumber });
    const holderEmail = String(holder.registration.email);
    service.clock.advance(HOLD_SECONDS);
    // A session of the holder's that still works when the login comes (the first access token has expired by now).
    const renewed = await refresh(holder);
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    const holderToken = `Token ${renewed.body.data.token.token}`;
    expect(await tokenWorks(service, company, holderToken)).toBe(true);
    // The login to the new number is the pending change's, not the unproven holder's.
    const sent = await sendLogin(newNumber);
    const login = await verify(newNumber, sent.code!);
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.data.user_id).toBe(account.userId);
    const table = service.app.table;
    expect((await getUser(table, company.company_id, account.userId, true))!).toMatchObject({ phone_number: newNumber, phone_verified: 1 });
    expect((await getPhoneClaim(table, company.company_id, e164(newNumber), 2, true))?.user_id).toBe(account.userId);
    expect(await getPhoneClaim(table, company.company_id, e164(oldNumber), 2, true)).toBeUndefined();
    expect(await getPendingPhoneChange(table, company.company_id, account.userId, true)).toBeUndefined();
    // The holder: reclaimed, every session ended, the token and the refresh token refused, the email free.
    expect((await getUser(table, company.company_id, holder.userId, true))?.status_id).toBe(UserStatus.PHONE_RECLAIMED);
    expect(await sessionOf(service, company, holder, holderToken)).toBeUndefined();
    expect(await sessionOf(service, company, holder, holder.authorization)).toBeUndefined();
    expect(await tokenWorks(service, company, holderToken)).toBe(false);
    expect((await refresh(holder)).status).toBe(401);
    expect(await getEmailClaimHolder(table, company.company_id, holderEmail, 2)).toBeUndefined();
    expect(await tokenWorks(service, company, `Token ${login.body.data.token.token}`)).toBe(true);
  });

  it('is void when the new number is taken between the code and its verify by a user who proved it: 409 code 7, the taker untouched', async () => {
    const { account, fresh, oldNumber } = await withOtpSession();
    const newNumber = randomPhoneNumber();
    expect((await change(fresh, await changeBody(newNumber, fresh))).status).toBe(200);
    service.clock.advance(HOLD_SECONDS);
    const sent = await sendLogin(newNumber);
    nextSend();
    const proof = await provePhone(service, company, newNumber);
    const taker = await signUp(service, company, { phone_number: newNumber, phone_verification_token: proof });
    const table = service.app.table;
    const takerBefore = await getUser(table, company.company_id, taker.userId, true);
    expect(takerBefore?.phone_verified).toBe(1);
    expectFailure(await verify(newNumber, sent.code!), 409, 7);
    expect((await getPhoneClaim(table, company.company_id, e164(newNumber), 2, true))?.user_id).toBe(taker.userId);
    expect(await getUser(table, company.company_id, taker.userId, true)).toEqual(takerBefore);
    expect(await sessionOf(service, company, taker, taker.authorization)).toBeDefined();
    expect(await getEmailClaimHolder(table, company.company_id, String(taker.registration.email), 2)).toBe(taker.userId);
    expect((await getUser(table, company.company_id, account.userId, true))!.phone_number).toBe(oldNumber);
    expect((await getPendingPhoneChange(table, company.company_id, account.userId, true))?.ended_reason).toBe('void');
    // Nothing ended: the user's sessions live on, and the profile shows no pending change.
    expect(await sessionOf(service, company, account, fresh)).toBeDefined();
    expect((await profile(await freshOtpSession(service, company, account))).body.data.pending_phone_change).toBeNull();
  });

  it('keeps outcomes on retries whose answers were lost: the request, the cancel, the completing login', async () => {
    const { account, fresh, oldNumber } = await withOtpSession();
    const texts = textDispatchFor(service.app);
    const origin = { sourceIp: '127.0.0.1', userAgent: 'test' };
    const principal = await authenticate(service.app, company.company_id, fresh);
    const newNumber = randomPhoneNumber();
    const request = {
      body: await parseInput(userPhoneChangeEndpoint.body, await changeBody(newNumber, fresh)),
      query: {},
      company,
      principal,
      origin,
      idempotencyRef: `ref-${account.userId}`,
    };
    const first = await userPhoneChange(service.app, request, texts);
    const toldBefore = outbox(oldNumber).length;
    expect(await userPhoneChange(service.app, request, texts)).toEqual(first);
    expect(outbox(oldNumber)).toHaveLength(toldBefore + 1);
    expect(await loginPinTries(service, company, account)).toBe(0);

    // The cancel, twice with one key: the same answer.
    const changeId = (first as { change_id: string }).change_id;
    const cancelCall = {
      body: await parseInput(userPhoneChangeCancelEndpoint.body, { change_id: changeId }),
      query: {},
      company,
      principal,
      origin,
      idempotencyRef: `cancel-${account.userId}`,
    };
    expect(await userPhoneChangeCancel(service.app, cancelCall)).toEqual({ message: 'Phone number change cancelled', kind: 'phone' });
    expect(await userPhoneChangeCancel(service.app, cancelCall)).toEqual({ message: 'Phone number change cancelled', kind: 'phone' });
    await expect(userPhoneChangeCancel(service.app, { ...cancelCall, idempotencyRef: 'another' })).rejects.toMatchObject({
      errorName: 'NOT_FOUND',
    });

    // A new change, completed by a login whose answer was lost: the retry is the same user's session.
    const again = await change(fresh, await changeBody(newNumber, fresh));
    expect(again.status).toBe(200);
    service.clock.advance(HOLD_SECONDS);
    const sent = await sendLogin(newNumber);
    const verifyCall = {
      body: await parseInput(verifyOtpEndpoint.body, { ...target(newNumber), otp: sent.code }),
      query: {},
      company,
      principal: undefined,
      origin,
      idempotencyRef: `verify-${account.userId}`,
    };
    const login = await verifyOtp(service.app, verifyCall, texts);
    const retried = await verifyOtp(service.app, verifyCall, texts);
    expect('user_id' in login && login.user_id).toBe(account.userId);
    expect('user_id' in retried && retried.user_id).toBe(account.userId);
    expect((await getUser(service.app.table, company.company_id, account.userId, true))!.phone_number).toBe(newNumber);
  });
});
