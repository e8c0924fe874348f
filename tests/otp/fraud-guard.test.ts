// The SMS fraud guard (API contract 3.2, 3.3, 5 and 6): where SMS may go (the company's
// countries, mobile lines only), limits per source address and per number range, and a lockout
// after too many wrong codes for one phone. Each limit is set small here through configuration.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { addressLimitKey, otpKey, phoneFailuresKey, phoneSendLimitKey } from '../../lib/store/keys.js';
import {
  type Answer,
  type CodeTargetBody,
  codeIn,
  expectFailure,
  type InProcessService,
  invoke,
  lastCodeSentTo,
  newCompany,
  nextHourStart,
  outboxMessages,
  randomPhoneNumber,
  signUp,
  testService,
} from '../helpers.js';

const send = (
  service: InProcessService,
  company: Company,
  target: CodeTargetBody,
  sourceIp = '198.51.100.7',
  extra: Record<string, string> = {},
) => invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id, ...extra }, body: target, sourceIp });
const verify = (service: InProcessService, company: Company, target: CodeTargetBody, otp: string, sourceIp = '198.51.100.7') =>
  invoke(service.handlers.verifyOtp, { path: '/v', headers: { CompanyID: company.company_id }, body: { ...target, otp }, sourceIp });
const item = async (service: InProcessService, key: { pk: string; sk: string }) =>
  (await service.app.table.client.send(new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }))).Item;

const verification = (dialCode: string, phoneNumber: string): CodeTargetBody => ({
  dial_code: dialCode,
  phone_number: phoneNumber,
  user_type: 2,
  otp_type: 2,
});

function expectRefusedDestination(answer: Answer, detail: RegExp): void {
  expectFailure(answer, 400, 15);
  expect(answer.body.data.errors).toEqual([{ code: 15, field: 'phone_number', detail: expect.stringMatching(detail) }]);
}

/** Nothing was sent to the number, stored for it, or counted against it. */
async function expectNothingSpent(service: InProcessService, company: Company, phoneE164: string): Promise<void> {
  expect(outboxMessages(service.app.config.sms.outboxFile, phoneE164)).toEqual([]);
  expect(await item(service, phoneSendLimitKey(company.company_id, phoneE164))).toBeUndefined();
  for (const otpType of [1, 2]) expect(await item(service, otpKey(company.company_id, phoneE164, 2, otpType))).toBeUndefined();
}

describe('countries: sms_countries', () => {
  const service = testService();
  let company: Company;
  beforeAll(async () => {
    company = await newCompany(service);
    await updateCompanySettings(service.app.table, service.clock, company.company_id, { sms_countries: ['IN'] });
  });

  it('refuses a destination outside the list with 400, code 15, on phone_number; nothing sent, stored or counted', async () => {
    const answer = await send(service, company, verification('+33', '612345678'));
    expectRefusedDestination(answer, /country \(FR\)/);
    await expectNothingSpent(service, company, '+33612345678');
  });

  it('sends to a destination in the list', async () => {
    expect((await send(service, company, verification('+91', '9876543210'))).status).toBe(200);
    expect(outboxMessages(service.app.config.sms.outboxFile, '+919876543210')).toHaveLength(1);
  });

  it('refuses a login code too, for a registered phone as for any, before anything is spent', async () => {
    const account = await signUp(service, company);
    const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    expectRefusedDestination(await send(service, company, target), /country \(US\)/);
    await expectNothingSpent(service, company, `+1${target.phone_number}`);
  });

  it('sends anywhere for a company without a list (the default)', async () => {
    const open = await newCompany(service);
    expect((await send(service, open, verification('+33', '612345678'))).status).toBe(200);
  });
});

describe('line types: only mobile lines get SMS', () => {
  const service = testService();
  let company: Company;
  beforeAll(async () => {
    company = await newCompany(service);
  });

  it.each([
    ['+33', '142685300', 'fixed line'],
    ['+1', '8005550100', 'toll free'],
    ['+1', '9005550100', 'premium rate'],
    ['+33', '810123456', 'shared cost'],
    ['+44', '5612345678', 'voip'],
    ['+44', '7640123456', 'pager'],
    ['+44', '5512345678', 'uan'],
    ['+44', '7012345678', 'personal number'],
  ])('refuses %s %s (%s) with 400, code 15, before any limit is spent', async (dialCode, number, type) => {
    const answer = await send(service, company, verification(dialCode, number));
    expectRefusedDestination(answer, new RegExp(`is an? ${type} number, not a mobile one`));
    await expectNothingSpent(service, company, `${dialCode}${number}`);
  });

  it.each([
    ['+33', '612345678', 'a French mobile'],
    ['+44', '7400123456', 'a British mobile'],
    ['+1', '2025550143', 'a US fixed-line-or-mobile number'],
  ])('sends to %s %s (%s)', async (dialCode, number) => {
    expect((await send(service, company, verification(dialCode, number))).status).toBe(200);
  });
});

describe('per source address', () => {
  const service = testService({ OTP_SENDS_PER_ADDRESS_PER_HOUR: '3', OTP_VERIFIES_PER_ADDRESS: '3' });
  let company: Company;
  beforeAll(async () => {
    company = await newCompany(service);
  });
  afterEach(() => service.clock.reset());

  it('allows 3 send requests an hour from one address, then 429 code 12 with Retry-After until the hour ends', async () => {
    const hourStart = nextHourStart();
    service.clock.freeze(hourStart + 600);
    const address = '203.0.113.10';
    for (let index = 0; index < 3; index++)
      expect((await send(service, company, verification('+1', randomPhoneNumber()), address)).status).toBe(200);
    const refused = await send(service, company, verification('+1', randomPhoneNumber()), address);
    expectFailure(refused, 429, 12);
    expect(Number(refused.headers['retry-after'])).toBe(3600 - 600);
    // Other addresses are not held back; the next hour the address may send again.
    expect((await send(service, company, verification('+1', randomPhoneNumber()), '203.0.113.11')).status).toBe(200);
    service.clock.freeze(hourStart + 3600);
    expect((await send(service, company, verification('+1', randomPhoneNumber()), address)).status).toBe(200);
  });

  it('counts the address API Gateway saw, never a header a client sets', async () => {
    service.clock.freeze(nextHourStart() + 600);
    const address = '203.0.113.20';
    for (let index = 0; index < 3; index++) {
      const spoofed = { 'X-Forwarded-For': `192.0.2.${index}`, 'X-Real-IP': `192.0.2.${index}` };
      expect((await send(service, company, verification('+1', randomPhoneNumber()), address, spoofed)).status).toBe(200);
    }
    expectFailure(
      await send(service, company, verification('+1', randomPhoneNumber()), address, { 'X-Forwarded-For': '192.0.2.99' }),
      429,
      12,
    );
  });

  it('counts IPv6 addresses by their /64: one subscriber’s addresses share a count', async () => {
    const hourStart = nextHourStart();
    service.clock.freeze(hourStart + 600);
    for (const address of ['2001:db8:aa:1::1', '2001:db8:aa:1:ffff::2', '2001:0db8:00aa:0001:1:2:3:4']) {
      expect((await send(service, company, verification('+1', randomPhoneNumber()), address)).status).toBe(200);
    }
    expectFailure(await send(service, company, verification('+1', randomPhoneNumber()), '2001:db8:aa:1::9'), 429, 12);
    expect((await send(service, company, verification('+1', randomPhoneNumber()), '2001:db8:aa:2::1')).status).toBe(200);
    expect(await item(service, addressLimitKey('2001:db8:aa:1::/64', 'SENDS', hourStart / 3600))).toMatchObject({
      requests: 3,
    });
  });

  it('allows 3 verify attempts per 5 minutes from one address, then 429 code 12, whatever the code', async () => {
    service.clock.freeze(nextHourStart() + 60);
    const target = verification('+1', randomPhoneNumber());
    expect((await send(service, company, target, '203.0.113.30')).status).toBe(200);
    const code = lastCodeSentTo(service, `+1${target.phone_number}`);
    const address = '203.0.113.31';
    for (let index = 0; index < 3; index++)
      expect((await verify(service, company, target, code === '000000' ? '000001' : '000000', address)).body.error).toEqual([9]);
    const refused = await verify(service, company, target, code, address);
    expectFailure(refused, 429, 12);
    expect(Number(refused.headers['retry-after'])).toBe(300 - 60);
    // The code itself is untouched by the refusal: from another address it still works.
    expect((await verify(service, company, target, code, '203.0.113.32')).status).toBe(200);
  });
});

describe('per number range', () => {
  const service = testService({ OTP_SENDS_PER_PREFIX_PER_HOUR: '3', OTP_PREFIX_DIGITS: '6' });
  afterEach(() => service.clock.reset());

  it('allows 3 sends an hour to one range (country code and 6 national digits), then 429; other ranges and the next hour go on', async () => {
    const company = await newCompany(service);
    const hourStart = nextHourStart();
    service.clock.freeze(hourStart + 1200);
    const inRange = (last4: string) => verification('+1', `202555${last4}`);
    for (const last4 of ['0101', '0102', '0103']) expect((await send(service, company, inRange(last4))).status).toBe(200);
    const refused = await send(service, company, inRange('0104'));
    expectFailure(refused, 429, 12);
    expect(Number(refused.headers['retry-after'])).toBe(3600 - 1200);
    // A refused send counts nothing against its phone, and gives the company's hour back.
    expect(await item(service, phoneSendLimitKey(company.company_id, '+12025550104'))).toBeUndefined();
    expect((await send(service, company, verification('+1', '2025560101'))).status).toBe(200);
    // Per company: another company's users in the range are not held back.
    expect((await send(service, await newCompany(service), inRange('0105'))).status).toBe(200);
    service.clock.freeze(hourStart + 3600);
    expect((await send(service, company, inRange('0104'))).status).toBe(200);
  });
});

describe('wrong codes per phone, across codes', () => {
  const service = testService();
  afterEach(() => service.clock.reset());

  /** A registered account, the login-code target of its phone, and the clock stopped 10 minutes into an hour. */
  async function accountAtFrozenTime() {
    const company = await newCompany(service);
    const account = await signUp(service, company);
    const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    const start = nextHourStart() + 600;
    service.clock.freeze(start);
    return { company, target, phoneE164: `+1${target.phone_number}`, start };
  }

  it('locks the phone after 10 wrong codes in 24 hours: verify answers 11 (even for a right code), a send 429, until the window has passed', async () => {
    const { company, target, phoneE164, start } = await accountAtFrozenTime();
    // Two codes, five wrong tries each: ten wrong codes for the phone.
    for (let round = 0; round < 2; round++) {
      service.clock.freeze(start + round * 61);
      expect((await send(service, company, target)).status).toBe(200);
      const code = lastCodeSentTo(service, phoneE164);
      const wrong = code === '000000' ? '000001' : '000000';
      for (let attempt = 0; attempt < 5; attempt++) expect((await verify(service, company, target, wrong)).body.error).toEqual([9]);
    }
    service.clock.freeze(start + 200);
    const refusedSend = await send(service, company, target);
    expectFailure(refusedSend, 429, 12);
    expect(Number(refusedSend.headers['retry-after'])).toBe(24 * 3600 - 200);
    // A type-2 code for the same phone is refused too: the lock is the phone's, across purposes.
    expectFailure(await send(service, company, { ...target, otp_type: 2 }), 429, 12);
    expect((await verify(service, company, target, '123456')).body.error).toEqual([11]);

    // A day after the first wrong code the phone opens again, and a right code works.
    service.clock.freeze(start + 24 * 3600 + 1);
    expect((await send(service, company, target)).status).toBe(200);
    const fresh = codeIn(outboxMessages(service.app.config.sms.outboxFile, phoneE164).at(-1));
    expect((await verify(service, company, target, fresh)).status).toBe(200);
  });

  it('counts a wrong code for the phone before comparing it: of 40 guesses at once, at most 10 are compared, then the phone is locked', async () => {
    // A code whose own tries never run out, so only the phone's 10-a-day limit stands between 40 guesses and the code.
    const generous = testService({ OTP_MAX_ATTEMPTS: '100' });
    const company = await newCompany(generous);
    const account = await signUp(generous, company);
    const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    expect((await send(generous, company, target)).status).toBe(200);
    const code = lastCodeSentTo(generous, `+1${target.phone_number}`);
    const wrong = Array.from({ length: 40 }, (_, index) => String((Number(code) + 1 + index) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(wrong.map((guess, index) => verify(generous, company, target, guess, `203.0.113.${index + 1}`)));
    expect(answers.filter((answer) => answer.body.error[0] === 9)).toHaveLength(10);
    for (const answer of answers.filter((a) => a.body.error[0] !== 9)) expect(answer.body.error).toEqual([11]);
    // Locked: even the right code is refused, and the code was never compared against it.
    expect((await verify(generous, company, target, code)).body.error).toEqual([11]);
  });

  it("leaves the phone's wrong codes as they were when nothing is compared: no live code, then a right one, a minute apart, move not even the latest try's time", async () => {
    const { company, target, phoneE164, start } = await accountAtFrozenTime();
    expect((await send(service, company, target)).status).toBe(200);
    const code = lastCodeSentTo(service, phoneE164);
    expect((await verify(service, company, target, code === '000000' ? '000001' : '000000')).body.error).toEqual([9]);
    const failures = phoneFailuresKey(company.company_id, phoneE164);
    const before = await item(service, failures);
    expect(before).toMatchObject({ last_try_at: start });
    // No code of this purpose was sent: nothing compared (10).
    service.clock.freeze(start + 60);
    expect((await verify(service, company, { ...target, otp_type: 2 }, code)).body.error).toEqual([10]);
    expect(await item(service, failures)).toEqual(before);
    // The right code is no wrong one.
    service.clock.freeze(start + 120);
    expect((await verify(service, company, target, code)).status).toBe(200);
    expect(await item(service, failures)).toEqual(before);
  });

  it('counts wrong codes for a phone with no account the same way (no enumeration by the lock either)', async () => {
    const company = await newCompany(service);
    const target = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 1 };
    const start = nextHourStart() + 600;
    for (let round = 0; round < 2; round++) {
      service.clock.freeze(start + round * 61);
      expect((await send(service, company, target)).status).toBe(200);
      for (let attempt = 0; attempt < 5; attempt++) expect((await verify(service, company, target, '000000')).body.error).toEqual([9]);
    }
    service.clock.freeze(start + 200);
    expectFailure(await send(service, company, target), 429, 12);
    expect((await verify(service, company, target, '000000')).body.error).toEqual([11]);
  });
});
