// login_phone must not tell who has an account: a registered and an unregistered phone get the
// same answers, limits included, and only the registered one is sent a code.
import { describe, expect, it } from 'vitest';
import { type Answer, invoke, newCompany, outboxMessages, randomPhoneNumber, signUp, testService } from '../helpers.js';

const service = testService();
const loginPhone = service.handlers.loginPhone;

/** What a client can observe of an answer, request-specific values aside. */
const observable = (answer: Answer) => ({
  status: answer.status,
  body: answer.body,
  headers: Object.keys(answer.headers).sort(),
  retryAfter: answer.headers['retry-after'] !== undefined,
});

describe('enumeration through login_phone', () => {
  it('answers a registered and an unregistered phone alike, on the first send and on the refused second', async () => {
    const company = await newCompany(service);
    const account = await signUp(service, company);
    const registered = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
    const unregistered = { ...registered, phone_number: randomPhoneNumber() };
    const send = (body: object) => invoke(loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body });

    const first = await Promise.all([send(registered), send(unregistered)]);
    expect(first[0].status).toBe(200);
    expect(observable(first[1])).toEqual(observable(first[0]));
    const second = await Promise.all([send(registered), send(unregistered)]);
    expect(second[0].status).toBe(429);
    expect(observable(second[1])).toEqual(observable(second[0]));
    expect(Math.abs(Number(second[1].headers['retry-after']) - Number(second[0].headers['retry-after']))).toBeLessThanOrEqual(1);

    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${registered.phone_number}`)).toHaveLength(1);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${unregistered.phone_number}`)).toEqual([]);
  });
});
