// change_pin and reset_pin (API contract 3.7) for both PINs, against DynamoDB Local: a change
// knows the current PIN (counted as a PIN login counts it), a reset proves the phone; both clear
// the PIN's count and lock, end every other session and leave a notice; the old PIN never works
// once a change has answered, even when PIN logins race it.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { countThenComparePin, PinRefused } from '../../lib/pins/pin-attempts.js';
import { pinTriesKey } from '../../lib/store/keys.js';
import { getUser } from '../../lib/store/user-store.js';
import {
  otpLogin,
  PINS,
  pinLogin,
  sessionOf,
  noticeEvents as sharedNoticeEvents,
  signUpWithDevice,
  strongSession,
  tokenWorks,
} from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { type Account, expectFailure, invoke, newCompany, provePhone, testService } from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const changePin = (authorization: string, body: unknown, idempotencyKey?: string) =>
  invoke(service.handlers.changePin, {
    path: '/wallet/v3/auth/change_pin',
    headers: { ...headers(authorization), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
    body,
  });
const resetPin = (authorization: string, body: unknown) =>
  invoke(service.handlers.resetPin, { path: '/wallet/v3/auth/reset_pin', headers: headers(authorization), body });

const noticeEvents = async (userId: string) => (await sharedNoticeEvents(service, company, userId)).sort();

async function tries(account: Account, pinType: 'login' | 'transaction'): Promise<number> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({
      TableName: service.app.table.name,
      Key: pinTriesKey(company.company_id, account.userId, pinType),
      ConsistentRead: true,
    }),
  );
  return (Item?.tries as Set<string> | undefined)?.size ?? 0;
}

/** A counted check of the transaction PIN, as its own endpoint makes one: 'right', or the refusal's code. */
async function transactionPin(account: Account, pin: string): Promise<'right' | number> {
  const user = (await getUser(service.app.table, company.company_id, account.userId, true))!;
  const check = { companyId: company.company_id, userId: account.userId, pinType: 'transaction' as const, pin };
  try {
    await countThenComparePin(service.app, { ...check, storedHash: user.transaction_pin_hash });
    return 'right';
  } catch (error) {
    if (error instanceof PinRefused) return error.code;
    throw error;
  }
}

describe('change_pin', () => {
  it('changes the login PIN: the old one stops working, every other session ends, this one stays, a notice is left', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const pinSession = `Token ${(await pinLogin(service, company, device, PINS.login_pin)).body.data.token.token}`;
    const answer = await changePin(pinSession, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' });
    expect(answer.body).toEqual({ success: 1, error: [], data: { message: 'PIN changed', revoked: 1 } });
    expect(await tokenWorks(service, company, pinSession)).toBe(true);
    expect(await tokenWorks(service, company, account.authorization)).toBe(false);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 400, 17);
    expect((await pinLogin(service, company, device, '8052')).status).toBe(200);
    expect(await noticeEvents(account.userId)).toEqual([3]);
    // The right PIN cleared the count the wrong one left.
    expect(await tries(account, 'login')).toBe(0);
  });

  it('changes the transaction PIN the same way', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    const answer = await changePin(strong, { pin_type: 2, current_pin: PINS.transaction_pin, new_pin: '730264' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await transactionPin(account, PINS.transaction_pin)).toBe(17);
    expect(await transactionPin(account, '730264')).toBe('right');
  });

  it('waits when asked from an SMS-strength session (an OTP login): the current PIN stays the PIN until the hold ends, and any session cancels it', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const otp = `Token ${(await otpLogin(service, company, account)).body.data.token.token}`;
    const held = await changePin(otp, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' });
    expect(held.body.data).toMatchObject({ message: 'PIN change pending', pending: 1 });
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
    expectFailure(await pinLogin(service, company, device, '8052'), 400, 17);
    // Cancelled from the owner's registration session: the hold's end changes nothing.
    const cancel = await invoke(service.handlers.userChangesCancel, {
      path: '/wallet/v3/user/changes/cancel',
      headers: headers(account.authorization),
      body: { change_id: held.body.data.change_id },
    });
    expect(cancel.body).toEqual({ success: 1, error: [], data: { message: 'Login PIN change cancelled', kind: 'login_pin' } });
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600 + 1);
    expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(200);
  });

  it('answers a wrong current PIN 17 with attempts_left, counted with PIN logins toward one lock', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    for (let i = 0; i < 3; i++) expectFailure(await pinLogin(service, company, device, '1357'), 400, 17);
    const wrong = await changePin(account.authorization, { pin_type: 1, current_pin: '1357', new_pin: '8052' });
    expectFailure(wrong, 400, 17);
    expect(wrong.body.data).toEqual({ message: 'BAD_REQUEST', attempts_left: 1 });
    expectFailure(await changePin(account.authorization, { pin_type: 1, current_pin: '1357', new_pin: '8052' }), 400, 17);
    expectFailure(await changePin(account.authorization, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' }), 400, 18);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 400, 18);
    expect(await noticeEvents(account.userId)).toEqual([5]);
  });

  it('refuses a new PIN equal to the current one, guessable, or malformed with 400, code 1, on new_pin; a bad pin_type on pin_type', async () => {
    const { account } = await signUpWithDevice(service, company);
    for (const newPin of [PINS.login_pin, '1234', '0000', '12a4', '1234567']) {
      const answer = await changePin(account.authorization, { pin_type: 1, current_pin: PINS.login_pin, new_pin: newPin });
      expectFailure(answer, 400, 1);
      expect([...new Set(answer.body.data.errors.map((error: { field: string }) => error.field))]).toEqual(['new_pin']);
    }
    const answer = await changePin(account.authorization, { pin_type: 3, current_pin: PINS.login_pin, new_pin: '8052' });
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toEqual(['pin_type']);
    expect(await tries(account, 'login')).toBe(0);
  });

  it('never lets the old PIN work once a change has answered, with PIN logins racing the change', async () => {
    for (let round = 0; round < 3; round++) {
      const { device } = await signUpWithDevice(service, company);
      // A strong session changes at once (contract 3.15): the one the race is about.
      const strong = await strongSession(service, company, device);
      // PIN logins with the old PIN, one every few milliseconds while the change is in flight.
      // When the logins in flight hold every try, the change answers 503 code 16 with
      // Retry-After (lib/pins/pin-attempts.ts): sent again with its key after it, as an app does.
      const key = randomUUID();
      let changing = true;
      let answered = false;
      const logins: ReturnType<typeof pinLogin>[] = [];
      const change = (async () => {
        for (let attempt = 1; ; attempt++) {
          changing = true;
          const answer = await changePin(strong, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' }, key);
          changing = false;
          if (answer.status !== 503 || attempt === 5) return answer;
          expect(answer.body.error).toEqual([16]);
          // The app's wait: the logins in flight, which held the tries, end meanwhile, and the clock moves on by Retry-After.
          await Promise.allSettled(logins);
          service.clock.advance(Number(answer.headers['retry-after']));
        }
      })().finally(() => {
        answered = true;
      });
      while (!answered) {
        if (changing) logins.push(pinLogin(service, company, device, PINS.login_pin));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      expect((await change).status).toBe(200);
      for (const login of await Promise.all(logins)) {
        if (login.status === 200) expect(await tokenWorks(service, company, `Token ${login.body.data.token.token}`)).toBe(false);
        // 16: every try held by logins still in flight (busy, retry).
        else expect([4, 16, 17, 18]).toContain(login.body.error[0]);
      }
      expect((await pinLogin(service, company, device, PINS.login_pin)).status).toBe(400);
    }
  });
});

describe('reset_pin', () => {
  it('waits when asked from a session begun by OTP login under 10 minutes ago: the locked PIN stays locked until the new one takes effect; older, or begun otherwise: 400, code 14', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    for (let i = 0; i < 5; i++) await pinLogin(service, company, device, '1357');
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 400, 18);
    const noProof = await resetPin(account.authorization, { pin_type: 1, new_pin: '8052' });
    expectFailure(noProof, 400, 14);
    expect(noProof.body.data.errors[0].field).toBe('phone_verification_token');
    // An OTP login no longer opens a locked PIN (contract 3.15): the device stays locked.
    const login = await otpLogin(service, company, account, { device_public_key: newDeviceKeyPair().publicKey });
    const otpSession = `Token ${login.body.data.token.token}`;
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 400, 18);
    service.clock.advance(service.app.config.pinResetOtpSessionSeconds - 10);
    const sentAt = epochSeconds(service.clock);
    const reset = await resetPin(otpSession, { pin_type: 1, new_pin: '8052' });
    const answeredAt = epochSeconds(service.clock);
    expect(reset.body).toEqual({
      success: 1,
      error: [],
      data: {
        message: 'PIN reset pending',
        pending: 1,
        change_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        effective_at: expect.any(Number),
      },
    });
    // Held from the second the request ran in: between the seconds it was sent and answered.
    const hold = service.app.config.phoneChangeHoldHours * 3600;
    expect(reset.body.data.effective_at).toBeGreaterThanOrEqual(sentAt + hold);
    expect(reset.body.data.effective_at).toBeLessThanOrEqual(answeredAt + hold);
    // Held: the current PIN stays the PIN (locked), and no session ended.
    expectFailure(await pinLogin(service, company, device, '8052'), 400, 18);
    expect(await tokenWorks(service, company, account.authorization)).toBe(true);
    expect((await noticeEvents(account.userId)).filter((event) => event === 11)).toHaveLength(1);
    service.clock.advance(20);
    expectFailure(await resetPin(otpSession, { pin_type: 1, new_pin: '5207' }), 400, 14);
    // Once due, the new PIN is the PIN: every tally cleared, the sessions begun before ended but the asking one.
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
    expect((await pinLogin(service, company, device, '8052')).status).toBe(200);
    // (Their access tokens have expired by now: the stored sessions say which ended.)
    expect(await sessionOf(service, company, account, account.authorization)).toBeUndefined();
    expect(await sessionOf(service, company, account, otpSession)).toBeDefined();
    expect((await noticeEvents(account.userId)).filter((event) => event === 4)).toHaveLength(1);
  });

  it('resets at once from a fresh strong session with a phone proof verified with the user’s own token, once; a proof got without the token: 400, code 14', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const phone = String(account.registration.phone_number);
    const strong = await strongSession(service, company, device);
    const anonymous = await provePhone(service, company, phone);
    const refused = await resetPin(strong, { pin_type: 1, new_pin: '8052', phone_verification_token: anonymous });
    expectFailure(refused, 400, 14);
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const proof = await provePhone(service, company, phone, { authorization: account.authorization });
    for (let i = 0; i < 4; i++) await pinLogin(service, company, device, '1357');
    const reset = await resetPin(strong, { pin_type: 1, new_pin: '8052', phone_verification_token: proof });
    expect(reset.body).toEqual({ success: 1, error: [], data: { message: 'PIN reset', revoked: 1 } });
    expect(await tokenWorks(service, company, account.authorization)).toBe(false);
    expect(await tokenWorks(service, company, strong)).toBe(true);
    expect((await pinLogin(service, company, device, '8052')).status).toBe(200);
    expectFailure(await resetPin(strong, { pin_type: 1, new_pin: '5207', phone_verification_token: proof }), 400, 14);
  });

  it('holds a reset from an SMS-strength session even with a proof, and one from a fresh strong session without a proof (the SIM is gone)', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const proof = await provePhone(service, company, String(account.registration.phone_number), { authorization: account.authorization });
    expect(
      (await resetPin(account.authorization, { pin_type: 2, new_pin: '730264', phone_verification_token: proof })).body.data.pending,
    ).toBe(1);
    const strong = await strongSession(service, company, device);
    const held = await resetPin(strong, { pin_type: 1, new_pin: '8052' });
    expect(held.body.data).toMatchObject({ message: 'PIN reset pending', pending: 1 });
    // Stale: a step-up first.
    service.clock.advance(service.app.config.stepUpMaxAgeSeconds);
    const stale = await resetPin(strong, { pin_type: 1, new_pin: '8052' });
    expectFailure(stale, 403, 5);
    expect(stale.body.data.needs).toBe('strong_fresh');
  });

  it('refuses a transaction PIN equal to the login PIN, and the reverse, at change and reset (400 code 1 on new_pin)', async () => {
    const { device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    const same = await changePin(strong, { pin_type: 2, current_pin: PINS.transaction_pin, new_pin: PINS.login_pin });
    expectFailure(same, 400, 1);
    expect(same.body.data.errors[0].field).toBe('new_pin');
    expectFailure(await resetPin(strong, { pin_type: 1, new_pin: PINS.transaction_pin }), 400, 1);
  });
});
