// Every flow of the service, failures included, with all log output captured: no password,
// PIN, one-time code, token or stored hash may appear in it. And every answer, above all one
// carrying a token, tells caches not to keep it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import { operatorRegistration, userRegister } from '../../lib/registration/user-register.js';
import { userRegisterBody } from '../../lib/registration/user-register-input.js';
import { getUser } from '../../lib/store/user-store.js';
import { newDeviceKeyPair, signedLoginPin } from '../harness/device-keys.js';
import { type FaultProxy, faultWhen, startFaultProxy } from '../harness/fault-proxy.js';
import { type FakeSns, startFakeSns } from '../harness/sns-fake.js';
import {
  type Answer,
  codeIn,
  type EventInput,
  type InProcessService,
  invoke,
  invokeQueued,
  lambdaContext,
  newCompany,
  sampleRegistration,
  testService,
} from '../helpers.js';
import { captureLogs, type LogCapture } from './log-capture.js';

// Codes go out through the real SNS client to a loopback SNS, as on a deployed stage, so the
// sending path checked is the one whose errors reach a function's log. DynamoDB is reached through
// the fault proxy, so failures (and what they log) can be provoked. Every log level is on, so
// nothing the service could ever log escapes the check.
let sns: FakeSns;
let dynamoProxy: FaultProxy;
let service: InProcessService;
let loginPhone: LambdaHttpHandler;
let referralProgram: LambdaHttpHandler;
let register: LambdaHttpHandler;
let verifyOtp: LambdaHttpHandler;
let logout: LambdaHttpHandler;

/** Secrets matched anywhere in the output: passwords, tokens, hashes. */
const secrets = new Set<string>();
/** Digit secrets (PINs, codes), matched only where no digit is next to them, as a logged value would be. */
const digitSecrets = new Set<string>();
const answers: { what: string; answer: Answer }[] = [];
/** Every phone number the flows use (national digits): logs name a phone only by its phone_ref. */
const phones = new Set<string>();

let capture: LogCapture;
let company: Company;

// Every case below checks what the flows logged, so the flows run before any of them, whichever
// cases are selected (vitest -t runs this hook too).
beforeAll(async () => {
  sns = await startFakeSns();
  dynamoProxy = await startFaultProxy(inject('dynamodbEndpoint'));
  service = testService({ SMS_SENDER: 'sns', SNS_ENDPOINT: sns.endpoint, DYNAMODB_ENDPOINT: dynamoProxy.endpoint, LOG_LEVEL: 'DEBUG' });
  ({ loginPhone, referralProgram, userRegister: register, verifyOtp, logout } = service.handlers);
  capture = captureLogs();
  try {
    await runEveryFlow();
  } finally {
    capture.stop();
  }
}, 120_000);

afterAll(async () => {
  service?.clock.reset();
  await Promise.all([sns?.close(), dynamoProxy?.close()]);
});

async function call(what: string, handler: LambdaHttpHandler, input: EventInput): Promise<Answer> {
  const answer = await invoke(handler, { ...input, headers: { CompanyID: company.company_id, ...input.headers } });
  answers.push({ what, answer });
  return answer;
}

const STRONG_PINS = ['739146', '582047', '604918', '815293', '927364', '416085', '350792', '261839'];
let pinTurn = 0;

/** A registration body whose password and PINs are fresh and remembered as secrets. */
function secretRegistration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  // Two PINs that are neither a repeated digit nor a straight run, taken in turn from a pool so
  // that the flows below use every one of them (the count checked further down is then fixed).
  const loginPin = STRONG_PINS[pinTurn++ % STRONG_PINS.length]!;
  const transactionPin = STRONG_PINS[pinTurn++ % STRONG_PINS.length]!;
  secrets.add(password);
  digitSecrets.add(loginPin).add(transactionPin);
  const body = sampleRegistration({ password, login_pin: loginPin, transaction_pin: transactionPin, ...overrides });
  phones.add(String(body.phone_number));
  return body;
}

/** An access token's signature, which makes it one: its claims (a user id, a session id) may be logged, the token never. */
const tokenSecret = (token: string) => token.slice(token.lastIndexOf('.') + 1);
/** A refresh token's random part and tag: its ids may be logged, these never. */
const refreshSecrets = (token: string) => token.split('.').slice(4);

function rememberToken(answer: Answer): string {
  const token = answer.body.data.token.token as string;
  secrets.add(tokenSecret(token));
  for (const part of refreshSecrets(answer.body.data.refresh_token)) secrets.add(part);
  return `Token ${token}`;
}

function lastPublishedCode(): string {
  const code = codeIn(sns.published.at(-1)?.message);
  digitSecrets.add(code);
  return code;
}

function wrongCodeFor(code: string): string {
  const wrong = String((Number(code) + 500_001) % 1_000_000).padStart(6, '0');
  digitSecrets.add(wrong);
  return wrong;
}

const target = (registration: Record<string, unknown>, otpType: number) => ({
  dial_code: '+1',
  phone_number: String(registration.phone_number),
  user_type: registration.user_type,
  otp_type: otpType,
});

function skipSendInterval(): void {
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
}

/** Sign-ups with a referral, an employee, codes sent and verified, the list paged, and failures. */
async function runEveryFlow(): Promise<void> {
  company = await newCompany(service);
  const path = '/wallet/v3/auth/user_register';

  // A customer, a customer they referred, an operator-made admin (a device bound at registration,
  // signed in by a PIN login on it: the strong session registering an employee asks, contract
  // 3.14 round 6) and an employee that admin registers.
  const customerBody = secretRegistration();
  const customer = await call('register customer', register, { path, body: customerBody });
  expect(customer.status).toBe(200);
  const customerToken = rememberToken(customer);
  const referredBody = secretRegistration({ referral_code: customer.body.data.referral_code });
  const referred = await call('register referred', register, { path, body: referredBody });
  expect(referred.status).toBe(200);
  rememberToken(referred);
  const adminKeys = newDeviceKeyPair();
  const adminBody = secretRegistration({
    user_type: 1,
    parent_user_id: undefined,
    referral_code: undefined,
    cretaed_by: undefined,
    device_public_key: adminKeys.publicKey,
  });
  const operatorMade = await userRegister(service.app, operatorRegistration(company, await userRegisterBody.parseAsync(adminBody)));
  secrets.add(tokenSecret(operatorMade.token.token));
  await setEmployeeRole(service.app, {
    companyId: company.company_id,
    actorId: 'operator',
    userId: operatorMade.user_id,
    role: 'admin',
    reason: 'setup',
  });
  const adminLogin = await call('admin PIN login', service.handlers.loginPin, {
    path: '/wallet/v3/auth/login_pin',
    body: signedLoginPin({ ...adminKeys, deviceKey: operatorMade.device_key! }, company.company_id, String(adminBody.login_pin), {
      timestamp: epochSeconds(service.clock),
    }),
  });
  expect(adminLogin.status).toBe(200);
  const adminToken = rememberToken(adminLogin);
  const employee = await call('register employee', register, {
    path,
    headers: { Authorization: adminToken },
    body: secretRegistration({ user_type: 1, reason: 'new hire' }),
  });
  expect(employee.status).toBe(200);
  rememberToken(employee);

  // Login by code: a wrong try, then the right one.
  const login = target(customerBody, 1);
  expect((await call('send login code', loginPhone, { path: '/l', body: login })).status).toBe(200);
  const loginCode = lastPublishedCode();
  expect((await call('verify wrong code', verifyOtp, { path: '/v', body: { ...login, otp: wrongCodeFor(loginCode) } })).body.error).toEqual(
    [9],
  );
  const session = await call('verify login code', verifyOtp, { path: '/v', body: { ...login, otp: loginCode } });
  expect(session.status).toBe(200);
  const sessionToken = rememberToken(session);
  expect((await call('send again at once', loginPhone, { path: '/l', body: login })).status).toBe(429);

  // Refreshes: a new pair, the spent token again (reuse ends the session), a made-up one.
  const refresh = (what: string, refreshToken: string) =>
    call(what, service.handlers.tokenRefresh, { path: '/t', body: { refresh_token: refreshToken } });
  const refreshing = await call('register to refresh', register, { path, body: secretRegistration() });
  rememberToken(refreshing);
  const renewed = await refresh('refresh', refreshing.body.data.refresh_token);
  expect(renewed.status).toBe(200);
  rememberToken(renewed);
  // Within the grace the spent token gets its successor again; past it, reuse.
  expect((await refresh('refresh again within the grace', refreshing.body.data.refresh_token)).status).toBe(200);
  service.clock.advance(service.app.config.refreshReuseGraceSeconds + 1);
  expect((await refresh('refresh reused', refreshing.body.data.refresh_token)).status).toBe(401);
  const [userId, sid] = String(renewed.body.data.refresh_token).split('.');
  const madeUp = `${userId}.${sid}.1.1.${randomBytes(32).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
  for (const part of refreshSecrets(madeUp)) secrets.add(part);
  expect((await refresh('refresh made up', madeUp)).status).toBe(401);

  // A top-up code, with the session's token.
  skipSendInterval();
  const topUp = target(customerBody, 3);
  expect((await call('send top-up code', loginPhone, { path: '/l', headers: { Authorization: sessionToken }, body: topUp })).status).toBe(
    200,
  );
  const topUpCode = lastPublishedCode();
  const wrongTopUp = { ...topUp, otp: wrongCodeFor(topUpCode) };
  expect(
    (await call('verify wrong top-up', verifyOtp, { path: '/v', headers: { Authorization: sessionToken }, body: wrongTopUp })).status,
  ).toBe(400);
  const verified = await call('verify top-up', verifyOtp, {
    path: '/v',
    headers: { Authorization: sessionToken },
    body: { ...topUp, otp: topUpCode },
  });
  expect(verified.body.data.verified).toBe(1);

  // The referral list, paged with a cursor, by its owner and by the employee.
  const list = (headers: Record<string, string>, query: Record<string, string>) =>
    call('referral list', referralProgram, { method: 'GET', path: '/p', headers, query });
  await signUpAnother(customer.body.data.referral_code);
  const first = await list({ Authorization: customerToken }, { limit: '1' });
  expect(first.body.data.next_cursor).toEqual(expect.any(String));
  expect((await list({ Authorization: customerToken }, { limit: '1', cursor: first.body.data.next_cursor })).status).toBe(200);

  // Refusals that carry secrets in the request.
  const refusedPassword = `pw-${randomBytes(12).toString('base64url')}`;
  secrets.add(refusedPassword);
  expect(
    (await call('weak PIN', register, { path, body: sampleRegistration({ password: refusedPassword, login_pin: '1234' }) })).status,
  ).toBe(400);
  expect(
    (await call('duplicate', register, { path, body: { ...secretRegistration(), phone_number: customerBody.phone_number } })).status,
  ).toBe(409);
  const forged = randomBytes(32).toString('base64url');
  secrets.add(forged);
  expect((await list({ Authorization: `Token ${forged}` }, {})).status).toBe(401);
  expect((await call('malformed JSON', register, { path, body: `{"password":"${refusedPassword}", "login_pin":"739146",` })).status).toBe(
    400,
  );
  expect(
    (
      await call('form body', register, {
        path,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `password=${refusedPassword}`,
      })
    ).status,
  ).toBe(400);

  // Failures, whose errors are logged in full: SNS refusing, DynamoDB throttling a registration
  // and the token write of a verified code.
  sns.failWith = 'InternalError';
  const verification = { dial_code: '+1', phone_number: String(sampleRegistration().phone_number), user_type: 2, otp_type: 2 };
  expect((await call('SNS down', loginPhone, { path: '/l', body: verification })).status).toBe(503);
  sns.failWith = undefined;
  dynamoProxy.rule = faultWhen((request) => request.operation === 'TransactWriteItems', 'throttle');
  expect((await call('table throttling', register, { path, body: secretRegistration() })).status).toBe(503);
  const referredLogin = target(referredBody, 1);
  dynamoProxy.reset();
  expect((await call('send referred code', loginPhone, { path: '/l', body: referredLogin })).status).toBe(200);
  const referredCode = lastPublishedCode();
  dynamoProxy.rule = faultWhen((request) => request.operation === 'TransactWriteItems' && request.body.includes('SESSION#'), 'throttle');
  expect((await call('token write failing', verifyOtp, { path: '/v', body: { ...referredLogin, otp: referredCode } })).status).toBe(503);
  dynamoProxy.reset();

  // A phone proved and registered with its proof, a phone taken over from an unverified holder,
  // and logouts: proofs are secrets, and no phone number may appear but as its phone_ref.
  skipSendInterval();
  const proven = secretRegistration();
  const provenTarget = target(proven, 2);
  expect((await call('send verification code', loginPhone, { path: '/l', body: provenTarget })).status).toBe(200);
  const proof = (await call('verify for a proof', verifyOtp, { path: '/v', body: { ...provenTarget, otp: lastPublishedCode() } })).body.data
    .verification_token as string;
  secrets.add(proof);
  const provenUser = await call('register with proof', register, { path, body: { ...proven, phone_verification_token: proof } });
  expect(provenUser.status).toBe(200);
  const provenToken = rememberToken(provenUser);
  const holderBody = secretRegistration();
  const holder = await call('register holder', register, { path, body: holderBody });
  expect(holder.status).toBe(200);
  rememberToken(holder);
  const reclaimTarget = target(holderBody, 2);
  expect((await call('send reclaim code', loginPhone, { path: '/l', body: reclaimTarget })).status).toBe(200);
  const reclaimProof = (await call('verify reclaim code', verifyOtp, { path: '/v', body: { ...reclaimTarget, otp: lastPublishedCode() } }))
    .body.data.verification_token as string;
  secrets.add(reclaimProof);
  const owner = await call('reclaim phone', register, {
    path,
    body: secretRegistration({ phone_number: reclaimTarget.phone_number, phone_verification_token: reclaimProof }),
  });
  expect(owner.status).toBe(200);
  rememberToken(owner);
  expect(
    (await call('logout others', logout, { path: '/o', headers: { Authorization: provenToken }, body: { scope: 'others' } })).status,
  ).toBe(200);
  expect((await call('logout', logout, { path: '/o', headers: { Authorization: provenToken } })).status).toBe(200);
  const nobody = String(sampleRegistration().phone_number);
  phones.add(nobody);
  expect(
    (
      await call('send to no account', loginPhone, {
        path: '/l',
        body: { dial_code: '+1', phone_number: nobody, user_type: 2, otp_type: 1 },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await call('refused destination', loginPhone, {
        path: '/l',
        body: { dial_code: '+1', phone_number: '8005550100', user_type: 2, otp_type: 2 },
      })
    ).status,
  ).toBe(400);

  await runDeviceAndPaymentFlows(path);
  await runQueuedSend();

  // The stored hashes are secrets too.
  for (const answer of [customer, referred, employee]) {
    const user = (await getUser(service.app.table, company.company_id, answer.body.data.user_id))!;
    for (const hash of [user.password_hash, user.login_pin_hash, user.transaction_pin_hash]) secrets.add(hash.split('$').at(-1)!);
  }
}

/** A device bound at registration, PIN logins right and wrong, a PIN change, payments authorized and redeemed. */
async function runDeviceAndPaymentFlows(path: string): Promise<void> {
  const keys = newDeviceKeyPair();
  const body = secretRegistration({ device_public_key: keys.publicKey, device_id: 'dev-1', device_unique_id: 'uniq-1' });
  const registered = await call('register with device', register, { path, body });
  expect(registered.status).toBe(200);
  rememberToken(registered);
  const device = { privateKey: keys.privateKey, deviceKey: registered.body.data.device_key as string };
  secrets.add(keys.publicKey.slice(-40));
  const pinLogin = (what: string, pin: string) =>
    call(what, service.handlers.loginPin, {
      path: '/wallet/v3/auth/login_pin',
      body: signedLoginPin(device, company.company_id, pin, { timestamp: epochSeconds(service.clock) }),
    });
  const wrongPin = STRONG_PINS.find((pin) => pin !== body.login_pin && pin !== body.transaction_pin)!;
  expect((await pinLogin('PIN login wrong', wrongPin)).body.error).toEqual([17]);
  const pinSession = await pinLogin('PIN login', String(body.login_pin));
  expect(pinSession.status).toBe(200);
  const pinToken = rememberToken(pinSession);
  expect(
    (await call('devices', service.handlers.devices, { method: 'GET', path: '/d', headers: { Authorization: pinToken } })).status,
  ).toBe(200);

  // Payments from the PIN login's strong session (an SMS-strength one pays nothing by default, contract 3.15):
  // a wrong transaction PIN, then an authorization redeemed once.
  const authorize = (what: string, pin: string, reference: string) =>
    call(what, service.handlers.transactionAuthorization, {
      path: '/wallet/v3/auth/transaction_authorization',
      headers: { Authorization: pinToken },
      body: { transaction_pin: pin, amount: '12.30', currency: 'EUR', payee: 'Acme Coffee', reference },
    });
  expect((await authorize('authorize wrong PIN', wrongPin, 'order-1')).body.error).toEqual([17]);
  const authorized = await authorize('authorize payment', String(body.transaction_pin), 'order-2');
  expect(authorized.status).toBe(200);
  const authorizationToken = authorized.body.data.authorization_token as string;
  secrets.add(authorizationToken);
  const payload = {
    company_id: company.company_id,
    authorization_token: authorizationToken,
    amount: '12.30',
    currency: 'EUR',
    payee: 'Acme Coffee',
    reference: 'order-2',
  };
  const redeem = (id: string) => service.invoked.redeemAuthorization(payload, { ...lambdaContext(), awsRequestId: id }) as Promise<any>;
  expect((await redeem('redeem-1')).success).toBe(1);
  expect((await redeem('redeem-2')).error).toEqual([19]);

  // The login PIN changed, knowing it: the new PIN is a secret too.
  const newPin = STRONG_PINS.find((pin) => ![body.login_pin, body.transaction_pin, wrongPin].includes(pin))!;
  digitSecrets.add(newPin);
  const changed = await call('change PIN', service.handlers.changePin, {
    path: '/wallet/v3/auth/change_pin',
    headers: { Authorization: pinToken },
    body: { pin_type: 1, current_pin: body.login_pin, new_pin: newPin },
  });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
}

/** A code through the SMS queue: queued sealed by login_phone, sent by smsSend, each logging. */
async function runQueuedSend(): Promise<void> {
  const queued: string[] = [];
  const queuing = testService(
    {
      SMS_SENDER: 'sns',
      SNS_ENDPOINT: sns.endpoint,
      SMS_DELIVERY: 'queue',
      LOG_LEVEL: 'DEBUG',
      SERVER_SECRET: service.app.config.serverSecret!,
    },
    { smsQueue: { enqueue: async (body) => void queued.push(body) } },
  );
  const phone = String(sampleRegistration().phone_number);
  phones.add(phone);
  const verification = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
  const sent = await invoke(queuing.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body: verification });
  expect(sent.status).toBe(200);
  for (const body of queued) secrets.add(body.slice(-40));
  expect(
    await invokeQueued(
      queuing.queued.smsSend,
      queued.map((body, index) => ({ messageId: `m-${index}`, body })),
    ),
  ).toEqual([]);
  lastPublishedCode();
}

async function signUpAnother(referralCode: string): Promise<void> {
  const answer = await call('register second referred', register, {
    path: '/wallet/v3/auth/user_register',
    body: secretRegistration({ referral_code: referralCode }),
  });
  expect(answer.status).toBe(200);
  rememberToken(answer);
}

describe('secrets never reach the logs', () => {
  it('ran every flow, refusals and failures included, and captured what the service logged of them', () => {
    expect(answers.map(({ what }) => what)).toEqual(
      expect.arrayContaining([
        'register customer',
        'register employee',
        'verify login code',
        'verify top-up',
        'refresh',
        'refresh reused',
        'refresh made up',
        'referral list',
        'SNS down',
        'table throttling',
        'token write failing',
        'PIN login',
        'authorize payment',
        'change PIN',
      ]),
    );
    const text = capture.text();
    expect(text).toContain('"message":"request refused"');
    expect(text).toContain('"message":"dependency unavailable"');
    expect(text).toMatch(/ThrottlingException|InternalError/);
  });

  it('holds no password, token or stored hash, whole or in part', () => {
    const text = capture.text();
    // Passwords, tokens and hashes of every flow: a check over a handful would prove little.
    expect(secrets.size).toBeGreaterThan(15);
    for (const secret of secrets) {
      expect(text.includes(secret), `a secret (${secret.slice(0, 4)}...) is in the logs`).toBe(false);
      expect(text.includes(secret.slice(0, 16)), `the start of a secret (${secret.slice(0, 4)}...) is in the logs`).toBe(false);
    }
  });

  it('holds no PIN and no one-time code, right or wrong', () => {
    const text = capture.text();
    // Every PIN of the pool, and the codes sent and guessed.
    expect(digitSecrets.size).toBeGreaterThan(10);
    for (const secret of digitSecrets) expect(text, `${secret} is in the logs`).not.toMatch(new RegExp(`(?<![0-9])${secret}(?![0-9])`));
    expect(text).not.toMatch(/verification code/);
  });

  it('names no phone number, only its phone_ref, and records an audit event for every flow', () => {
    const text = capture.text();
    expect(phones.size).toBeGreaterThan(8);
    for (const phone of phones) expect(text.includes(phone), `phone ${phone.slice(0, 3)}... is in the logs`).toBe(false);
    for (const event of [
      'user_registered',
      'phone_reclaimed',
      'code_sent',
      'code_suppressed',
      'code_verified',
      'code_failed',
      'login',
      'logout',
      'sessions_revoked',
      'limited',
      'destination_refused',
      'device_bound',
      'pin_verified',
      'pin_failed',
      'pin_changed',
      'transaction_authorized',
      'transaction_authorization_refused',
      'authorization_redeemed',
      'authorization_redeem_refused',
    ]) {
      expect(text, event).toContain(`"audit_event":"${event}"`);
    }
    expect(text).toMatch(/"phone_ref":"1\.[0-9a-f]{16}"/);
  });

  it('sends Cache-Control: no-store with every answer, and with each of the answers carrying a token', () => {
    expect(answers.length).toBeGreaterThan(20);
    const withToken = answers.filter(({ answer }) => answer.body.data?.token);
    expect(withToken.length).toBeGreaterThanOrEqual(5);
    for (const { what, answer } of answers) expect(answer.headers['cache-control'], what).toBe('no-store');
  });
});
