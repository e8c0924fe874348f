// The SNS path with the real SNS client against an SNS-speaking loopback endpoint.
import { sns } from './sns-environment.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as loginPhone } from '../../functions/login-phone.js';
import { handler as register } from '../../functions/user-register.js';
import { handler as verifyOtp } from '../../functions/verify-otp.js';
import { documentClient, tableName } from '../../lib/store/dynamo-client.js';
import { otpKey, phoneSendLimitKey } from '../../lib/store/keys.js';
import { invoke, newCompany, randomPhoneNumber, sampleRegistration } from '../helpers.js';

let companyId: string;

beforeAll(async () => {
  companyId = (await newCompany()).company_id;
});

afterAll(() => sns.close());

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
    const code = sms.message.match(/\b(\d{6})\b/)![1]!;
    const verified = await invoke(verifyOtp, { path: '/v', headers: { CompanyID: companyId }, body: { ...login, otp: code } });
    expect(verified.status).toBe(200);
    expect(verified.body.data.token.type).toBe('Token');
  });

  it('answers a failed SNS publish with a 500 envelope, leaves no code, and gives the send back', async () => {
    const login = await registeredLogin();
    sns.failWith = 'InternalError';
    const published = sns.published.length;
    try {
      const answer = await send(login);
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ success: 0, error: [500], data: { message: 'INTERNAL_SERVER_ERROR' } });
    } finally {
      sns.failWith = undefined;
    }
    expect(sns.published.length).toBe(published);
    const phone = `+1${login.phone_number}`;
    const { Item: code } = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: otpKey(companyId, phone, 2, 1) }),
    );
    expect(code).toBeUndefined();
    const { Item: counters } = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: phoneSendLimitKey(companyId, phone) }),
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
