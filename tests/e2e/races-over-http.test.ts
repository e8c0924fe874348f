// Issue 37's races as clients meet them: concurrent HTTP requests to serverless-offline on this
// machine's cores. Each round, one account gets at once a deletion (or an operator's disable), a
// phone change, an email change and an OTP login to the number it is leaving (the SIM swapper's).
// Whatever order they land in, the table then holds no claim of a user who is not active or whose
// record names another value (a disabled user keeps theirs, marked disabled), no live session of a
// user who is not active, and no live session begun from a code to a number its user has left.
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { setStatusEndingSessions } from '../../lib/sessions/end-sessions.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { claimCheck } from '../harness/claim-check.js';
import { newDeviceKeyPair, signedLoginPin } from '../harness/device-keys.js';
import { type OtpLogin, type PhoneChangeSent, sessionCheck } from '../harness/session-check.js';
import { identityProblems, scanItems } from '../harness/table-snapshot.js';
import { codeIn, outboxMessages, randomPhoneNumber, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();
const ROUNDS = 6;

async function call(path: string, body: unknown, authorization?: string) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      CompanyID: service.company.company_id,
      'Idempotency-Key': randomUUID(),
      ...(authorization ? { Authorization: authorization } : {}),
    },
    body: JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method: 'POST', path, ...answer });
  expect(answer.body).not.toHaveProperty('stackTrace');
  return answer;
}

const auth = (path: string, body: unknown, authorization?: string) => call(`/wallet/v3/auth/${path}`, body, authorization);
const lastCode = (phone: string) => codeIn(outboxMessages(service.server.env.SMS_OUTBOX_FILE!, `+1${phone}`).at(-1));

/** Sends a code and answers it: a proof (otp_type 2, with the token given). */
async function codeAnswer(phone: string, otpType: 2, authorization?: string) {
  const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: otpType };
  expect((await auth('login_phone', target, authorization)).status).toBe(200);
  const verified = await auth('verify_otp', { ...target, otp: lastCode(phone) }, authorization);
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body.data;
}

describe('races on one account over HTTP', () => {
  it(`deletion or disable, phone change, email change and an OTP login to the old number at once, ${ROUNDS} rounds: nothing half-done`, async () => {
    const companyId = service.company.company_id;
    const leftBehind: OtpLogin[] = [];
    const phoneChanges: PhoneChangeSent[] = [];
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const keys = newDeviceKeyPair();
      const registration = sampleRegistration({ device_public_key: keys.publicKey, device_id: `phone-${round}` });
      const oldPhone = String(registration.phone_number);
      const registered = await auth('user_register', registration);
      expect(registered.status).toBe(200);
      const userId = registered.body.data.user_id as string;
      // A fresh session by PIN login on the bound device: the number's one code this round is the swapper's.
      const device = { privateKey: keys.privateKey, deviceKey: registered.body.data.device_key as string };
      const pinBody = signedLoginPin(device, companyId, String(registration.login_pin), { timestamp: Math.floor(Date.now() / 1000) });
      const pinLogin = await auth('login_pin', pinBody);
      expect(pinLogin.status, JSON.stringify(pinLogin.body)).toBe(200);
      const fresh = `Token ${pinLogin.body.data.token.token}`;
      const newPhone = randomPhoneNumber();
      phoneChanges.push({ sid: decodeJwt(pinLogin.body.data.token.token).sid as string, userId, toE164: `+1${newPhone}` });
      const proof = (await codeAnswer(newPhone, 2, fresh)).verification_token as string;
      // The SIM swapper's code to the number being left, answered in the race.
      const target = { dial_code: '+1', phone_number: oldPhone, user_type: 2, otp_type: 1 };
      expect((await auth('login_phone', target)).status).toBe(200);
      const swapperCode = lastCode(oldPhone);
      const ending =
        round % 2 === 0
          ? call('/wallet/v3/user/delete', {}, fresh).then((answer) => `delete ${answer.status}`)
          : setStatusEndingSessions(service.server.local.app, companyId, userId, UserStatus.DISABLED).then(() => 'disable');
      const [ended, changed, emailed, swapper] = await Promise.all([
        ending,
        call('/wallet/v3/user/phone/change', { dial_code: '+1', phone_number: newPhone, phone_verification_token: proof }, fresh),
        call('/wallet/v3/user/profile/update', { email: `moved.${newPhone}@example.com` }, fresh),
        auth('verify_otp', { ...target, otp: swapperCode }),
      ]);
      outcomes.push(`${ended}, phone ${changed.status}, email ${emailed.status}, swapper ${swapper.status}`);
      for (const answer of [changed, emailed]) expect([200, 401, 409, 503]).toContain(answer.status);
      // The swapper's code dies with the change (code 10) or its session is refused (401).
      expect([200, 401, 503, 400]).toContain(swapper.status);
      if (swapper.status === 400) expect(swapper.body.error).toEqual([10]);
      if (swapper.status === 200) {
        leftBehind.push({ userId, phoneE164: `+1${oldPhone}`, sid: decodeJwt(swapper.body.data.token.token).sid as string });
      }
    }
    const items = await scanItems(service.server.local.app.table.client, service.server.local.app.table.name, companyId);
    // The chaos run's checks (tests/harness): claims, every user's identity and sessions, and the sessions begun by a code to a left number.
    const problems = [
      ...claimCheck(items, companyId).problems,
      ...identityProblems(items, companyId),
      ...sessionCheck(items, companyId, { otpLogins: leftBehind, phoneChanges }, Math.floor(Date.now() / 1000)).problems,
    ];
    expect(problems, outcomes.join('; ')).toEqual([]);
  }, 120_000);
});
