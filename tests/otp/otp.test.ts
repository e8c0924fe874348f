import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { authenticate } from '../../lib/sessions/access-tokens.js';
import { otpKey, phoneSendLimitKey } from '../../lib/store/keys.js';
import { consumeCode, takeCodeTry } from '../../lib/store/otp-store.js';
import {
  type Answer,
  type CodeTargetBody,
  expectFailure,
  fillCompanyHour,
  invoke,
  lastCodeSentTo,
  newCompany,
  nextHourStart,
  outboxMessages,
  randomPhoneNumber,
  signUp,
  testService,
} from '../helpers.js';

const service = testService();
const loginPhone = service.handlers.loginPhone;
const verifyOtp = service.handlers.verifyOtp;

let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const e164 = (target: CodeTargetBody) => `${target.dial_code}${target.phone_number}`;

function send(target: CodeTargetBody, headers: Record<string, string> = {}, companyId = company.company_id): Promise<Answer> {
  return invoke(loginPhone, { path: '/wallet/v3/auth/login_phone', headers: { CompanyID: companyId, ...headers }, body: target });
}

function verify(
  target: CodeTargetBody,
  otp: string,
  headers: Record<string, string> = {},
  companyId = company.company_id,
): Promise<Answer> {
  return invoke(verifyOtp, {
    path: '/wallet/v3/auth/verify_otp',
    headers: { CompanyID: companyId, ...headers },
    body: { ...target, otp },
  });
}

/** A registered customer and the login target for their phone. */
async function registeredCustomer(target: Company = company) {
  const account = await signUp(service, target);
  const login: CodeTargetBody = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
  return { ...account, login };
}

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('login by phone', () => {
  it('sends a 6-digit code by SMS to the E.164 number and stores only its keyed hash', async () => {
    const { login } = await registeredCustomer();
    const answer = await send(login);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: 1, error: [], data: { message: expect.stringMatching(/sent/i), expires_in: 300 } });

    const code = lastCodeSentTo(service, e164(login));
    expect(code).toMatch(/^\d{6}$/);
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: otpKey(company.company_id, e164(login), 2, 1) }),
    );
    expect(Item).toMatchObject({ expires_at: expect.any(Number) });
    expect(Item).not.toHaveProperty('tries');
    expect(Item!.expires_at - Item!.created_at).toBe(300);
    expect(JSON.stringify(Item)).not.toContain(code);
  });

  it('turns the right code into a session: token and user_id, as registration does', async () => {
    const { login, userId } = await registeredCustomer();
    await send(login);
    const answer = await verify(login, lastCodeSentTo(service, e164(login)));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      message: expect.any(String),
      token: { type: 'Token', token: expect.any(String) },
      refresh_token: expect.any(String),
      expires_in: 900,
      user_id: userId,
    });
    expect(answer.headers['cache-control']).toBe('no-store');
    const principal = await authenticate(service.app, company.company_id, `Token ${answer.body.data.token.token}`);
    expect(principal).toEqual({
      companyId: company.company_id,
      userId,
      userType: 2,
      sessionId: expect.stringMatching(/^[0-9a-f]{32}$/),
      // An SMS code alone: an SMS-strength session (contract 3.15).
      session: {
        began: 'otp',
        beganAt: expect.any(Number),
        deviceKey: undefined,
        acr: 'sms',
        authTime: expect.any(Number),
        credentialAt: undefined,
      },
    });
  });

  it('accepts a code once only', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const code = lastCodeSentTo(service, e164(login));
    expect((await verify(login, code)).status).toBe(200);
    expectFailure(await verify(login, code), 400, 10);
  });

  it('refuses a wrong code with 400, code 9, and kills the code after 5 wrong tries', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const code = lastCodeSentTo(service, e164(login));
    for (let attempt = 1; attempt <= 5; attempt++) expectFailure(await verify(login, wrongCode(code)), 400, 9);
    expectFailure(await verify(login, code), 400, 11);
  });

  it('refuses an expired code with 400, code 10, even while DynamoDB still holds it', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const code = lastCodeSentTo(service, e164(login));
    service.clock.advance(301);
    expectFailure(await verify(login, code), 400, 10);
  });

  it('answers 400, code 10, when no code was ever sent', async () => {
    const { login } = await registeredCustomer();
    expectFailure(await verify(login, '123456'), 400, 10);
  });

  it('replaces the previous code on a new send', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const first = lastCodeSentTo(service, e164(login));
    // A new code draws the same six digits once in a million: send again then, so the old one can be tried.
    let second = first;
    for (let sends = 0; sends < 3 && second === first; sends++) {
      service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
      expect((await send(login)).status).toBe(200);
      second = lastCodeSentTo(service, e164(login));
    }
    expect(second).not.toBe(first);
    expectFailure(await verify(login, first), 400, 9);
    expect((await verify(login, second)).status).toBe(200);
  });

  it('answers an unregistered phone exactly like a registered one, sends nothing, and its verify answers alike too', async () => {
    const { login } = await registeredCustomer();
    const unknown: CodeTargetBody = { ...login, phone_number: randomPhoneNumber() };
    const [registered, unregistered] = await Promise.all([send(login), send(unknown)]);
    expect(unregistered.status).toBe(registered.status);
    expect(unregistered.body).toEqual(registered.body);
    expect(Object.keys(unregistered.headers).sort()).toEqual(Object.keys(registered.headers).sort());
    expect(outboxMessages(service.app.config.sms.outboxFile, e164(unknown))).toEqual([]);
    // A code record no code matches, with the same lifetime and try counting as a real one.
    const stored = async (target: CodeTargetBody) =>
      (
        await service.app.table.client.send(
          new GetCommand({ TableName: service.app.table.name, Key: otpKey(company.company_id, e164(target), 2, 1) }),
        )
      ).Item!;
    const [real, decoy] = await Promise.all([stored(login), stored(unknown)]);
    expect(Object.keys(decoy).sort()).toEqual(
      Object.keys(real)
        .filter((key) => key !== 'user_id')
        .sort(),
    );
    expect(decoy.expires_at - decoy.created_at).toBe(real.expires_at - real.created_at);
    // Wrong codes: 9 for both, then 11 for both once the tries are spent.
    const code = lastCodeSentTo(service, e164(login));
    for (let attempt = 1; attempt <= 5; attempt++) {
      const guess = String(attempt).padStart(6, '0') === code ? '999999' : String(attempt).padStart(6, '0');
      const [a, b] = await Promise.all([verify(login, guess), verify(unknown, guess)]);
      expect([a.status, b.status, a.body.error, b.body.error]).toEqual([400, 400, [9], [9]]);
    }
    const [a, b] = await Promise.all([verify(login, code), verify(unknown, code)]);
    expect([a.body.error, b.body.error]).toEqual([[11], [11]]);
  });

  it('does not log in a customer with an employee code target (user_type is part of the identity)', async () => {
    const { login } = await registeredCustomer();
    const asEmployee = { ...login, user_type: 1 };
    expect((await send(asEmployee)).status).toBe(200);
    expect(outboxMessages(service.app.config.sms.outboxFile, e164(login))).toEqual([]);
  });

  it('counts at most 5 wrong tries when 20 arrive at once, and the code is dead after', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const code = lastCodeSentTo(service, e164(login));
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(login, wrongCode(code))));
    for (const answer of answers) expect([9, 11]).toContain(answer.body.error[0]);
    // Counted before compared: at most 5 were compared (9), however they interleaved. Possibly none:
    // an attempt that took one of the code's tries but found the phone's own limit full spends its
    // try unused, and the code's 5 may all fall to such attempts (one run in about 60 did).
    const compared = answers.filter((answer) => answer.body.error[0] === 9).length;
    expect(compared).toBeLessThanOrEqual(5);
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: otpKey(company.company_id, e164(login), 2, 1) }),
    );
    expect(Item!.tries.size).toBe(5);
    expectFailure(await verify(login, code), 400, 11);
  });

  it('compares at most 5 of 40 guesses that arrive at once from 40 addresses, the right code last, and the code is dead after', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const code = lastCodeSentTo(service, e164(login));
    const guesses = [...Array.from({ length: 39 }, (_, index) => wrongCode(String((Number(code) + index) % 1_000_000))), code];
    const answers = await Promise.all(
      guesses.map((guess, index) =>
        invoke(verifyOtp, {
          path: '/wallet/v3/auth/verify_otp',
          headers: { CompanyID: company.company_id },
          body: { ...login, otp: guess },
          sourceIp: `198.51.100.${index + 1}`,
        }),
      ),
    );
    const compared = answers.filter((answer) => answer.status === 200 || answer.body.error[0] === 9);
    expect(compared.length).toBeLessThanOrEqual(5);
    for (const answer of answers.filter((a) => !compared.includes(a))) expect([10, 11]).toContain(answer.body.error[0]);
    const won = answers.some((answer) => answer.status === 200);
    // Dead (11) unless the right code was among the 5 compared and used it up (10).
    expectFailure(await verify(login, code), 400, won ? 10 : 11);
  });

  it('counts the same attempt once when its write is sent again (an SDK retry after a lost answer)', async () => {
    const { login } = await registeredCustomer();
    await send(login);
    const key = otpKey(company.company_id, e164(login), 2, 1);
    const now = Math.floor(service.clock.now() / 1000);
    const first = await takeCodeTry(service.app.table, key, 'attempt-a', now, 5);
    const again = await takeCodeTry(service.app.table, key, 'attempt-a', now, 5);
    expect(first.taken && again.taken).toBe(true);
    expect(again.taken && again.record.tries).toEqual(new Set(['attempt-a']));
    const sendId = first.taken ? first.record.send_id : '';
    expect(await consumeCode(service.app.table, key, sendId, 'attempt-a')).toBe(true);
    expect(await consumeCode(service.app.table, key, sendId, 'attempt-a')).toBe(true);
    expect(await consumeCode(service.app.table, key, sendId, 'attempt-b')).toBe(false);
  });
});

describe('send limits', () => {
  it('allows one send per 60 s per phone: 429, code 12, with Retry-After', async () => {
    const { login } = await registeredCustomer();
    service.clock.freeze(nextHourStart() + 600);
    expect((await send(login)).status).toBe(200);
    service.clock.advance(1);
    const again = await send({ ...login, otp_type: 2 });
    expectFailure(again, 429, 12);
    expect(again.body.data.message).toBe('TOO_MANY_REQUESTS');
    expect(Number(again.headers['retry-after'])).toBe(59);
    expect(outboxMessages(service.app.config.sms.outboxFile, e164(login))).toHaveLength(1);
  });

  it('allows 5 sends an hour per phone, then 429 until the hour has passed', async () => {
    const { login } = await registeredCustomer();
    service.clock.freeze(nextHourStart() + 60);
    for (let sendNumber = 1; sendNumber <= 5; sendNumber++) {
      expect((await send(login)).status, `send ${sendNumber}`).toBe(200);
      service.clock.advance(61);
    }
    const sixth = await send(login);
    expectFailure(sixth, 429, 12);
    // The hour is the phone's own, opened by its first send.
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(retryAfter).toBe(3600 - 5 * 61);
    service.clock.advance(retryAfter - 1);
    expectFailure(await send(login), 429, 12);
    service.clock.advance(1);
    expect((await send(login)).status).toBe(200);
  });

  it('counts one send when 10 race for the same phone', async () => {
    const phone = randomPhoneNumber();
    const target: CodeTargetBody = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(target)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(9);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)).toHaveLength(1);
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: phoneSendLimitKey(company.company_id, `+1${phone}`) }),
    );
    expect(Item!.window_count).toBe(1);
  });

  it("stops a company's sends at its hourly ceiling, with Retry-After at the next hour", async () => {
    const capped = await newCompany(service);
    const hourStart = nextHourStart();
    service.clock.freeze(hourStart + 1200);
    const hour = hourStart / 3600;
    await fillCompanyHour(service, capped.company_id, hour);
    const target: CodeTargetBody = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 2 };
    const answer = await send(target, {}, capped.company_id);
    expectFailure(answer, 429, 12);
    expect(Number(answer.headers['retry-after'])).toBe(3600 - 1200);
    expect(outboxMessages(service.app.config.sms.outboxFile, e164(target))).toEqual([]);
    // The refused send gave its per-phone count back.
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: phoneSendLimitKey(capped.company_id, e164(target)) }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('purposes', () => {
  it('sends a phone-verification code without a token, and verifies it as verified: 1 with a verification_token', async () => {
    const target: CodeTargetBody = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 2 };
    expect((await send(target)).status).toBe(200);
    const answer = await verify(target, lastCodeSentTo(service, e164(target)));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      message: expect.any(String),
      verified: 1,
      verification_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
  });

  it.each([3, 4])('otp_type %i needs the token of the phone owner: 401 without, 403 with another user’s', async (otpType) => {
    const owner = await registeredCustomer();
    const other = await registeredCustomer();
    const target = { ...owner.login, otp_type: otpType };
    expectFailure(await send(target), 401, 4);
    expectFailure(await send(target, { Authorization: other.authorization }), 403, 5);
    expectFailure(await verify(target, '123456', { Authorization: other.authorization }), 403, 5);
    expectFailure(await verify(target, '123456'), 401, 4);

    expect((await send(target, { Authorization: owner.authorization })).status).toBe(200);
    const answer = await verify(target, lastCodeSentTo(service, e164(target)), { Authorization: owner.authorization });
    expect(answer.status).toBe(200);
    expect(answer.body.data.verified).toBe(1);
  });

  it('keeps codes of different purposes apart', async () => {
    const target: CodeTargetBody = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 2 };
    await send(target);
    const code = lastCodeSentTo(service, e164(target));
    expectFailure(await verify({ ...target, otp_type: 1 }, code), 400, 10);
    expect((await verify(target, code)).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it('does not accept under another company a code sent under one company', async () => {
    const other = await newCompany(service);
    const { login } = await registeredCustomer();
    await send(login);
    const code = lastCodeSentTo(service, e164(login));
    expectFailure(await verify(login, code, {}, other.company_id), 400, 10);
    expect((await verify(login, code)).status).toBe(200);
  });

  it("refuses another company's token for a top-up code (401)", async () => {
    const other = await newCompany(service);
    const outsider = await registeredCustomer(other);
    const { login } = await registeredCustomer();
    expectFailure(await send({ ...login, otp_type: 3 }, { Authorization: outsider.authorization }), 401, 4);
  });
});

describe('validation', () => {
  it.each([
    [{ otp_type: 5 }, 'otp_type'],
    [{ otp_type: '1' }, 'otp_type'],
    [{ user_type: 3 }, 'user_type'],
    [{ phone_number: '5555555555' }, 'phone_number'],
    [{ dial_code: undefined }, 'dial_code'],
  ])('login_phone refuses %j', async (overrides, field) => {
    const target = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 1, ...overrides };
    const answer = await send(target as CodeTargetBody);
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it.each(['12345', '1234567', 'abcdef', '', 123456])('verify_otp refuses otp %j', async (otp) => {
    const target: CodeTargetBody = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 1 };
    const answer = await verify(target, otp as string);
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toEqual(['otp']);
  });
});
