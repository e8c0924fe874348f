// The SNS path with the real SNS client against an SNS-speaking loopback endpoint.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import { otpKey, phoneSendLimitKey } from '../../lib/store/keys.js';
import { type FakeSns, startFakeSns } from '../harness/sns-fake.js';
import {
  codeIn,
  expectUnavailable,
  type InProcessService,
  invoke,
  newCompany,
  randomPhoneNumber,
  sampleRegistration,
  testService,
} from '../helpers.js';

let sns: FakeSns;
let service: InProcessService;
let loginPhone: LambdaHttpHandler;
let register: LambdaHttpHandler;
let verifyOtp: LambdaHttpHandler;
let companyId: string;

beforeAll(async () => {
  sns = await startFakeSns();
  service = testService({ SMS_SENDER: 'sns', SNS_ENDPOINT: sns.endpoint, SMS_SENDER_ID: 'WALLET' });
  ({ loginPhone, userRegister: register, verifyOtp } = service.handlers);
  companyId = (await newCompany(service)).company_id;
});

afterAll(() => sns?.close());

async function registeredLogin() {
  const body = sampleRegistration();
  const answer = await invoke(register, { path: '/r', headers: { CompanyID: companyId }, body });
  expect(answer.status).toBe(200);
  return { dial_code: '+1', phone_number: String(body.phone_number), user_type: 2, otp_type: 1 };
}

const send = (target: object) => invoke(loginPhone, { path: '/l', headers: { CompanyID: companyId }, body: target });

describe('sending codes through Amazon SNS', () => {
  it('publishes a transactional SMS to the E.164 number, and its code logs in', async () => {
    const login = await registeredLogin();
    expect((await send(login)).status).toBe(200);
    const sms = sns.published.at(-1)!;
    expect(sms.action).toBe('Publish');
    expect(sms.phoneNumber).toBe(`+1${login.phone_number}`);
    expect(sms.attributes).toEqual({ 'AWS.SNS.SMS.SMSType': 'Transactional', 'AWS.SNS.SMS.SenderID': 'WALLET' });
    const code = codeIn(sms.message);
    const verified = await invoke(verifyOtp, { path: '/v', headers: { CompanyID: companyId }, body: { ...login, otp: code } });
    expect(verified.status).toBe(200);
    expect(verified.body.data.token.type).toBe('Token');
  });

  it('answers a failed SNS publish with the 503 envelope (code 16), leaves no code, and gives the send back', async () => {
    const login = await registeredLogin();
    sns.failWith = 'InternalError';
    const published = sns.published.length;
    try {
      expectUnavailable(await send(login));
    } finally {
      sns.failWith = undefined;
    }
    expect(sns.published.length).toBe(published);
    const phone = `+1${login.phone_number}`;
    const { Item: code } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: otpKey(companyId, phone, 2, 1) }),
    );
    expect(code).toBeUndefined();
    const { Item: counters } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: phoneSendLimitKey(companyId, phone) }),
    );
    expect(counters).toBeUndefined();
    // With SNS back, the user can ask again at once: the failed send did not count.
    expect((await send(login)).status).toBe(200);
  });

  it('sends phone-verification codes to unregistered numbers too', async () => {
    const phone = randomPhoneNumber();
    expect((await send({ dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 })).status).toBe(200);
    expect(sns.published.at(-1)!.phoneNumber).toBe(`+1${phone}`);
  });
});
