// A new phone number (API contract 3.11), against DynamoDB Local: fresh proof of the holder and a
// proof of the new number bound to this user; from a session begun by PIN login, one transaction
// moves the claims (reclaiming from an unproven holder, never from a proven one) and ends the other
// sessions; the notice is listed, the old number is told without a code and gets no login code
// afterwards, the new one logs in. A session begun by OTP login makes a change that waits:
// phone-change-pending.test.ts.

import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { userPhoneChange } from '../../lib/account/phone-change.js';
import { phoneChangeNoticeText } from '../../lib/account/phone-change-notice.js';
import { userPhoneChangeEndpoint } from '../../lib/api/user-phone-change-endpoint.js';
import type { Company } from '../../lib/companies/companies.js';
import { authenticate } from '../../lib/sessions/access-tokens.js';
import { textDispatchFor } from '../../lib/sms/sms-delivery.js';
import { createSmsSender, type SendText } from '../../lib/sms/sms-sender.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { getPhoneClaim, getUser } from '../../lib/store/user-store.js';
import { parseInput } from '../../lib/validation.js';
import {
  freshOtpSession,
  otpLogin,
  PINS,
  pinLogin,
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

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const change = (authorization: string, body: Record<string, unknown>) =>
  invoke(service.handlers.userPhoneChange, { path: '/wallet/v3/user/phone/change', headers: headers(authorization), body });
const to = (phoneNumber: string, proof?: string) => ({
  dial_code: '+1',
  phone_number: phoneNumber,
  ...(proof ? { phone_verification_token: proof } : {}),
});
const e164 = (phoneNumber: string) => `+1${phoneNumber}`;
const noticeEvents = (userId: string) => sharedNoticeEvents(service, company, userId);
const outbox = (phoneNumber: string) => outboxMessages(service.app.config.sms.outboxFile, e164(phoneNumber));

const freshSession = (account: Account) => freshOtpSession(service, company, account);

/** A customer with a bound device and a session begun by PIN login on it just now: it changes the number at once. */
async function withPinSession(on = service, own = company): Promise<{ account: Account; fresh: string }> {
  const { account, device } = await signUpWithDevice(on, own);
  const login = await pinLogin(on, own, device, PINS.login_pin);
  if (login.status !== 200) throw new Error(`PIN login answered ${login.status}`);
  return { account, fresh: `Token ${login.body.data.token.token}` };
}

/** A proof of a number, verified while presenting this token (as phone/change asks). */
function proofFor(phoneNumber: string, authorization: string): Promise<string> {
  return provePhone(service, company, phoneNumber, { authorization });
}

const loginCode = (phoneNumber: string) =>
  invoke(service.handlers.loginPhone, {
    path: '/l',
    headers: { CompanyID: company.company_id },
    body: { dial_code: '+1', phone_number: phoneNumber, user_type: 2, otp_type: 1 },
  });

describe('POST /wallet/v3/user/phone/change', () => {
  it('moves the account: claims, record, proof used, other sessions ended, notice 6; the old number is told and gets no code, the new one logs in', async () => {
    const { account, fresh } = await withPinSession();
    const oldNumber = String(account.registration.phone_number);
    const newNumber = randomPhoneNumber();
    const proof = await proofFor(newNumber, fresh);
    const codesToOld = outbox(oldNumber).length;

    const answer = await change(fresh, to(newNumber, proof));
    expect(answer.body).toEqual({ success: 1, error: [], data: { message: 'Phone number changed', revoked: 1 } });

    const user = (await getUser(service.app.table, company.company_id, account.userId, true))!;
    expect(user).toMatchObject({ dial_code: '+1', phone_number: newNumber, phone_e164: e164(newNumber), phone_verified: 1 });
    expect((await getPhoneClaim(service.app.table, company.company_id, e164(newNumber), 2, true))?.user_id).toBe(account.userId);
    expect(await getPhoneClaim(service.app.table, company.company_id, e164(oldNumber), 2, true)).toBeUndefined();
    // The registration's session ended; this one stays.
    expect(await tokenWorks(service, company, account.authorization)).toBe(false);
    expect(await tokenWorks(service, company, fresh)).toBe(true);
    expect((await noticeEvents(account.userId)).filter((event) => event === 6)).toHaveLength(1);
    const listed = await invoke(service.handlers.notifications, { method: 'GET', path: '/n', headers: headers(fresh) });
    expect(listed.body.data.notification.map((item: any) => item.notification_event_type)).toContain(6);

    // The old number is told, with no code in the text.
    const told = outbox(oldNumber);
    expect(told).toHaveLength(codesToOld + 1);
    const warning = told.at(-1)!;
    expect(warning).toBe(phoneChangeNoticeText(company));
    expect(() => codeIn(warning.replaceAll(company.name, ''))).toThrow('no code');
    // The proof is used up.
    expectFailure(await change(fresh, to(randomPhoneNumber(), proof)), 400, 14);

    // No claim holds the old number any more: the enumeration-safe 200 and nothing sent.
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const sent = await loginCode(oldNumber);
    expect(sent.status).toBe(200);
    expect(outbox(oldNumber)).toHaveLength(codesToOld + 1);
    // The new number logs in.
    const newLogin = await otpLogin(service, company, { ...account, registration: { ...account.registration, phone_number: newNumber } });
    expect(newLogin.status).toBe(200);
    expect(newLogin.body.data.user_id).toBe(account.userId);
  });

  it('keeps the change when the warning to the old number cannot leave: logged and counted, never undone', async () => {
    const blocked = new Set<string>();
    let real: SendText | undefined;
    const failing = testService(
      {},
      {
        sms: async (message) => {
          if (blocked.has(message.phoneNumber)) throw Object.assign(new Error('SNS is down (test)'), { name: 'InternalError' });
          real ??= createSmsSender(failing.app.config);
          await real(message);
        },
      },
    );
    const own = await newCompany(failing);
    const { account, fresh } = await withPinSession(failing, own);
    const newNumber = randomPhoneNumber();
    const proof = await provePhone(failing, own, newNumber, { authorization: fresh });
    blocked.add(e164(String(account.registration.phone_number)));
    const counted = vi.spyOn(failing.app.metrics, 'count');
    const logged = vi.spyOn(failing.app.logger, 'info');
    const answer = await invoke(failing.handlers.userPhoneChange, {
      path: '/c',
      headers: { CompanyID: own.company_id, Authorization: fresh },
      body: to(newNumber, proof),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await getUser(failing.app.table, own.company_id, account.userId, true))!.phone_number).toBe(newNumber);
    expect(counted).toHaveBeenCalledWith('phone_change_notices_failed');
    const audits = logged.mock.calls.map(([, fields]) => fields as unknown as Record<string, unknown>);
    expect(audits).toContainEqual(expect.objectContaining({ audit_event: 'phone_changed', outcome: 'changed', revoked: 1 }));
    expect(audits).toContainEqual(expect.objectContaining({ audit_event: 'phone_change_notice', outcome: 'failed' }));
  });

  it('answers a retry of a change whose answer was lost (a 503 after the commit) as the first, and tells the old number', async () => {
    const { account, fresh } = await withPinSession();
    const oldNumber = String(account.registration.phone_number);
    const newNumber = randomPhoneNumber();
    const proof = await proofFor(newNumber, fresh);
    // The call as the chain builds it for a request sent with an Idempotency-Key (its ref names key and body).
    const call = {
      body: await parseInput(userPhoneChangeEndpoint.body, to(newNumber, proof)),
      query: {},
      company,
      principal: await authenticate(service.app, company.company_id, fresh),
      origin: { sourceIp: '127.0.0.1', userAgent: 'test' },
      idempotencyRef: `ref-${account.userId}`,
    };
    const texts = textDispatchFor(service.app);
    expect(await userPhoneChange(service.app, call, texts)).toEqual({ message: 'Phone number changed', revoked: 1 });
    const toldBefore = outbox(oldNumber).length;
    // The answer never reached the client, whose retry runs the request again: the same outcome, the old number told again.
    expect(await userPhoneChange(service.app, call, texts)).toEqual({ message: 'Phone number changed', revoked: 0 });
    expect(outbox(oldNumber)).toHaveLength(toldBefore + 1);
    // Another request for the number it already has is still refused.
    await expect(userPhoneChange(service.app, { ...call, idempotencyRef: 'another' }, texts)).rejects.toMatchObject({
      errorName: 'BAD_REQUEST',
    });
  });

  it('kills a login code sent to the old number before the change', async () => {
    const { account, fresh } = await withPinSession();
    const oldNumber = String(account.registration.phone_number);
    const newNumber = randomPhoneNumber();
    const proof = await proofFor(newNumber, fresh);
    // A SIM-swapper's code, sent to the old number before the change and typed after it.
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    expect((await loginCode(oldNumber)).status).toBe(200);
    const code = codeIn(outbox(oldNumber).at(-1));
    expect((await change(fresh, to(newNumber, proof))).status).toBe(200);
    const verified = await invoke(service.handlers.verifyOtp, {
      path: '/v',
      headers: { CompanyID: company.company_id },
      body: { dial_code: '+1', phone_number: oldNumber, user_type: 2, otp_type: 1, otp: code },
    });
    expectFailure(verified, 400, 10);
  });

  it('takes a session begun by PIN login under 10 minutes ago', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const login = await pinLogin(service, company, device, PINS.login_pin);
    const pinSession = `Token ${login.body.data.token.token}`;
    service.clock.advance(9 * 60);
    const newNumber = randomPhoneNumber();
    const answer = await change(pinSession, to(newNumber, await proofFor(newNumber, pinSession)));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await getUser(service.app.table, company.company_id, account.userId, true))!.phone_number).toBe(newNumber);
  });

  it('refuses without a fresh login (400, code 14): a session begun by registration, or an OTP login 11 minutes ago', async () => {
    const account = await signUp(service, company);
    const newNumber = randomPhoneNumber();
    const byRegistration = await change(account.authorization, to(newNumber, await proofFor(newNumber, account.authorization)));
    expectFailure(byRegistration, 400, 14);
    const fresh = await freshSession(account);
    service.clock.advance(11 * 60);
    const late = randomPhoneNumber();
    expectFailure(await change(fresh, to(late, await proofFor(late, fresh))), 400, 14);
    // Nothing moved.
    const user = (await getUser(service.app.table, company.company_id, account.userId, true))!;
    expect(user.phone_number).toBe(account.registration.phone_number);
    expect(await getPhoneClaim(service.app.table, company.company_id, e164(newNumber), 2, true)).toBeUndefined();
    expect(await tokenWorks(service, company, account.authorization)).toBe(true);
  });

  it('refuses without a proof, or with a wrong, anonymous, other user’s, other number’s or used one (400, code 14)', async () => {
    const [{ account, fresh }, other] = [await withPinSession(), await signUp(service, company)];
    const newNumber = randomPhoneNumber();
    const refused = async (proof: string | undefined) => {
      const answer = await change(fresh, to(newNumber, proof));
      expectFailure(answer, 400, 14);
      expect(answer.body.data.errors[0].field).toBe('phone_verification_token');
    };
    await refused(undefined);
    await refused('A'.repeat(43));
    await refused(await provePhone(service, company, newNumber));
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    await refused(await proofFor(newNumber, other.authorization));
    await refused(await proofFor(randomPhoneNumber(), fresh));
    // Used: spent on one change, then presented for the same number again after moving on.
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const proof = await proofFor(newNumber, fresh);
    expect((await change(fresh, to(newNumber, proof))).status).toBe(200);
    const next = randomPhoneNumber();
    expect((await change(fresh, to(next, await proofFor(next, fresh)))).status).toBe(200);
    await refused(proof);
    expect((await getUser(service.app.table, company.company_id, account.userId, true))!.phone_number).toBe(next);
  });

  it('refuses a number an active user proved (409, code 7), and reclaims one from a holder who never proved it', async () => {
    const [{ account, fresh }, proven, unproven] = [await withPinSession(), await signUp(service, company), await signUp(service, company)];
    await freshSession(proven); // an OTP login proves the phone
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const provenNumber = String(proven.registration.phone_number);
    const held = await change(fresh, to(provenNumber, await proofFor(provenNumber, fresh)));
    expectFailure(held, 409, 7);
    expect(held.body.data.errors[0].field).toBe('phone_number');
    expect((await getPhoneClaim(service.app.table, company.company_id, e164(provenNumber), 2, true))?.user_id).toBe(proven.userId);

    const unprovenNumber = String(unproven.registration.phone_number);
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const reclaimed = await change(fresh, to(unprovenNumber, await proofFor(unprovenNumber, fresh)));
    expect(reclaimed.status, JSON.stringify(reclaimed.body)).toBe(200);
    expect((await getPhoneClaim(service.app.table, company.company_id, e164(unprovenNumber), 2, true))?.user_id).toBe(account.userId);
    const holder = (await getUser(service.app.table, company.company_id, unproven.userId, true))!;
    expect(holder.status_id).toBe(UserStatus.PHONE_RECLAIMED);
    expect(await tokenWorks(service, company, unproven.authorization)).toBe(false);
    expect(await tokenWorks(service, company, fresh)).toBe(true);
  });

  it('two users moving to one free number at once: one wins, the other 409 code 7', async () => {
    const [{ account: ada, fresh: adaSession }, { account: grace, fresh: graceSession }] = [await withPinSession(), await withPinSession()];
    const number = randomPhoneNumber();
    const adaProof = await proofFor(number, adaSession);
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const graceProof = await proofFor(number, graceSession);
    const answers = await Promise.all([change(adaSession, to(number, adaProof)), change(graceSession, to(number, graceProof))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? ada : grace;
    const loser = winner === ada ? grace : ada;
    expect((await getPhoneClaim(service.app.table, company.company_id, e164(number), 2, true))?.user_id).toBe(winner.userId);
    expect((await getUser(service.app.table, company.company_id, loser.userId, true))!.phone_number).toBe(loser.registration.phone_number);
    expect(
      (await getPhoneClaim(service.app.table, company.company_id, e164(String(loser.registration.phone_number)), 2, true))?.user_id,
    ).toBe(loser.userId);
  });
});
