// Proven phones and sessions over HTTP, as clients meet them: serverless-offline serving
// concurrent requests, every answer checked against the published document.
import { describe, expect, it } from 'vitest';
import { codeIn, outboxMessages, randomPhoneNumber, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function call(method: string, path: string, body: unknown, authorization?: string) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      CompanyID: service.company.company_id,
      ...(authorization ? { Authorization: authorization } : {}),
    },
    body: method === 'GET' ? undefined : JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method, path, ...answer });
  return answer;
}

const post = (path: string, body: unknown, authorization?: string) => call('POST', `/wallet/v3/auth/${path}`, body, authorization);
const works = async (authorization: string) =>
  (await call('GET', '/wallet/v3/reward_promotion/referral_program', undefined, authorization)).status;
const lastCode = (phone: string) => codeIn(outboxMessages(service.server.env.SMS_OUTBOX_FILE!, `+1${phone}`).at(-1));

async function proofFor(phone: string): Promise<string> {
  const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
  expect((await post('login_phone', target)).status).toBe(200);
  const verified = await post('verify_otp', { ...target, otp: lastCode(phone) });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body.data.verification_token;
}

describe('proven phones and sessions over HTTP', () => {
  it('one proof presented by two registrations at once: exactly one succeeds, the other gets 400 code 14', async () => {
    const phone = randomPhoneNumber();
    const proof = await proofFor(phone);
    const answers = await Promise.all(
      ['a', 'b'].map((who) =>
        post(
          'user_register',
          sampleRegistration({ phone_number: phone, email: `${who}.${phone}@example.com`, phone_verification_token: proof }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body.error).toEqual([14]);
  });

  it('the verified owner reclaims a phone from an unverified holder, whose session ends at once', async () => {
    const bystander = await post('user_register', sampleRegistration());
    const bystanderToken = `Token ${bystander.body.data.token.token}`;
    const held = sampleRegistration();
    const first = await post('user_register', held);
    const proof = await proofFor(String(held.phone_number));
    const owner = await post('user_register', sampleRegistration({ phone_number: held.phone_number, phone_verification_token: proof }));
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(await works(`Token ${first.body.data.token.token}`)).toBe(401);
    expect(await works(`Token ${owner.body.data.token.token}`)).toBe(200);
    // Nobody else lost anything.
    expect(await works(bystanderToken)).toBe(200);
  });

  it('logout of all racing a new login over HTTP: the old sessions end, a session issued after the logout survives', async () => {
    const registration = sampleRegistration();
    const account = await post('user_register', registration);
    const before = `Token ${account.body.data.token.token}`;
    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    expect((await post('login_phone', target)).status).toBe(200);
    const code = lastCode(String(registration.phone_number));
    const [loggedOut, login] = await Promise.all([post('logout', { scope: 'all' }, before), post('verify_otp', { ...target, otp: code })]);
    expect([loggedOut.status, login.status]).toEqual([200, 200]);
    expect(await works(before)).toBe(401);
    const after = await works(`Token ${login.body.data.token.token}`);
    expect(loggedOut.body.data.revoked).toBe(after === 401 ? 2 : 1);
    // Logging out again with the surviving session ends it; it then answers 401.
    if (after === 200) {
      const again = await post('logout', undefined, `Token ${login.body.data.token.token}`);
      expect(again.body.data).toEqual({ message: expect.any(String), revoked: 1 });
      expect(await works(`Token ${login.body.data.token.token}`)).toBe(401);
    }
  });

  it('refuses a logout scope it does not know with 400 code 1, and a logout without a token with 401', async () => {
    const account = await post('user_register', sampleRegistration());
    const refused = await post('logout', { scope: 'everywhere' }, `Token ${account.body.data.token.token}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual([1]);
    expect((await post('logout', {})).status).toBe(401);
  });
});
