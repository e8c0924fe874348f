import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { deviceSignedText } from '../../lib/devices/device-signatures.js';
import { newDeviceKeyPair, newNonce, signedLoginPin, signText } from '../../tests/harness/device-keys.js';
import { codeIn, httpEvent, type InProcessService, lambdaContext, outboxMessages } from '../../tests/harness/in-process-service.js';
import { setup } from './account-change-scenarios.js';
import type { ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of trusted devices and PINs (API contract 3.6, 3.7, 3.15), in an order where
// each leaves what the next needs: customers with a bound device, PIN logins (right, wrong, locked,
// forged), the device list, PIN changes and resets (at once from a strong session, held from an
// SMS-strength one), a held change cancelled, not_me, a step-up, a held PIN put in place once due, removals. Shared by the bench and
// tests/devices/round-trips.test.ts, which checks each against its documented minimum.

const LOGIN_PIN = '2580';
const TRANSACTION_PIN = '1397';

export async function runDeviceScenarios(
  service: InProcessService,
  company: Company,
  phones: string[],
  run: (spec: ScenarioSpec) => Promise<unknown>,
): Promise<void> {
  const { app, clock, handlers } = service;
  const calls = phones.length;
  const headers = { CompanyID: company.company_id };
  // Setup, not measured: a customer with a bound device per phone.
  const customers: { phone: string; keys: ReturnType<typeof newDeviceKeyPair>; deviceKey: string }[] = [];
  for (const phone of phones) {
    const keys = newDeviceKeyPair();
    const body = {
      dial_code: '+1',
      phone_number: phone,
      user_type: 2,
      first_name: 'Pin',
      last_name: 'Bench',
      password: 'correct horse battery',
      login_pin: LOGIN_PIN,
      transaction_pin: TRANSACTION_PIN,
      device_public_key: keys.publicKey,
    };
    const { body: answer } = await setup(handlers.userRegister, { path: '/r', headers, body });
    customers.push({ phone, keys, deviceKey: answer.data.device_key as string });
  }
  const sessions: string[] = [];
  // Time moved on for the scenarios that need it, and the company read again: as a warm container's, cached.
  const advance = async (seconds: number) => {
    clock.advance(seconds);
    await app.companies.require(company.company_id);
  };
  const pinLogin = (index: number, pin: string, forged = false) => {
    const customer = customers[index]!;
    const privateKey = forged ? newDeviceKeyPair().privateKey : customer.keys.privateKey;
    const body = signedLoginPin({ privateKey, deviceKey: customer.deviceKey }, company.company_id, pin, { timestamp: epochSeconds(clock) });
    return { path: '/wallet/v3/auth/login_pin', headers, body };
  };
  const pin = { endpoint: 'loginPin' as const, handler: handlers.loginPin, calls };
  await run({
    ...pin,
    outcome: 'right PIN',
    expectStatus: 200,
    event: (index) => pinLogin(index, LOGIN_PIN),
    onAnswer: (index, { body }) => (sessions[index] = `Token ${body.data.token.token}`),
  });
  await run({ ...pin, outcome: 'wrong PIN (400, code 17)', expectStatus: 400, event: (index) => pinLogin(index, '1357') });
  // Setup: the rest of the wrong tries, so the login PIN is locked.
  for (let index = 0; index < calls; index++) {
    for (let tries = 1; tries < app.config.pinMaxFailures; tries++)
      await handlers.loginPin(httpEvent(pinLogin(index, '1357')), lambdaContext());
  }
  await run({ ...pin, outcome: 'PIN locked (400, code 18)', expectStatus: 400, event: (index) => pinLogin(index, LOGIN_PIN) });
  await run({ ...pin, outcome: 'bad signature (401)', expectStatus: 401, event: (index) => pinLogin(index, LOGIN_PIN, true) });

  const withToken = (index: number) => ({ ...headers, Authorization: sessions[index]! });
  await run({
    endpoint: 'devices',
    handler: handlers.devices,
    calls,
    outcome: 'own devices',
    expectStatus: 200,
    event: (index) => ({ method: 'GET', path: '/wallet/v3/auth/devices', headers: withToken(index) }),
  });

  const change = { endpoint: 'changePin' as const, handler: handlers.changePin, calls };
  const changeBody = (current: string, next = '730264') => ({ pin_type: 2, current_pin: current, new_pin: next });
  await run({
    ...change,
    outcome: 'wrong current PIN (400, code 17)',
    expectStatus: 400,
    event: (index) => ({ path: '/wallet/v3/auth/change_pin', headers: withToken(index), body: changeBody('2468') }),
  });
  await run({
    ...change,
    outcome: 'PIN changed',
    expectStatus: 200,
    event: (index) => ({ path: '/wallet/v3/auth/change_pin', headers: withToken(index), body: changeBody(TRANSACTION_PIN) }),
  });

  // Setup: a phone proof for each customer, verified with the customer's token.
  const proofs: string[] = [];
  for (const [index, customer] of customers.entries()) {
    const target = { dial_code: '+1', phone_number: customer.phone, user_type: 2, otp_type: 2 };
    await setup(handlers.loginPhone, { path: '/l', headers: withToken(index), body: target });
    const otp = codeIn(outboxMessages(app.config.sms.outboxFile, `+1${customer.phone}`).at(-1));
    proofs[index] = (
      await setup(handlers.verifyOtp, { path: '/v', headers: withToken(index), body: { ...target, otp } })
    ).body.data.verification_token;
  }
  const reset = { endpoint: 'resetPin' as const, handler: handlers.resetPin, calls };
  await run({
    ...reset,
    outcome: 'with a phone proof',
    expectStatus: 200,
    event: (index) => ({
      path: '/wallet/v3/auth/reset_pin',
      headers: withToken(index),
      body: { pin_type: 1, new_pin: '8052', phone_verification_token: proofs[index] },
    }),
  });
  await run({
    ...reset,
    outcome: 'held (a fresh strong session, no phone proof)',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({ path: '/wallet/v3/auth/reset_pin', headers: withToken(index), body: { pin_type: 2, new_pin: '915372' } }),
  });
  await run({
    endpoint: 'userSecurityNotMe',
    handler: handlers.userSecurityNotMe,
    calls,
    outcome: 'one held change cancelled',
    expectStatus: 200,
    event: (index) => ({ path: '/wallet/v3/user/security/not_me', headers: withToken(index), body: {} }),
  });

  // Setup: an OTP login per customer (the changes above ended every other session): SMS-strength sessions.
  // One wait past the send interval for every phone: one per customer would let the first tokens expire.
  const bySms: Record<string, string>[] = [];
  await advance(app.config.otp.sendIntervalSeconds + 1);
  for (const [index, customer] of customers.entries()) {
    const target = { dial_code: '+1', phone_number: customer.phone, user_type: 2, otp_type: 1 };
    await setup(handlers.loginPhone, { path: '/l', headers, body: target });
    const otp = codeIn(outboxMessages(app.config.sms.outboxFile, `+1${customer.phone}`).at(-1));
    const token = (await setup(handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp } })).body.data.token.token;
    bySms[index] = { ...headers, Authorization: `Token ${token}` };
  }
  const held: string[] = [];
  await run({
    ...change,
    outcome: 'held (an SMS-strength session)',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({ path: '/wallet/v3/auth/change_pin', headers: bySms[index]!, body: changeBody('730264', '582916') }),
    onAnswer: (index, { body }) => (held[index] = body.data.change_id),
  });
  await run({
    endpoint: 'userChangesCancel',
    handler: handlers.userChangesCancel,
    calls,
    outcome: 'a held change cancelled',
    expectStatus: 200,
    event: (index) => ({ path: '/wallet/v3/user/changes/cancel', headers: bySms[index]!, body: { change_id: held[index] } }),
  });
  const remove = { endpoint: 'devicesRemove' as const, handler: handlers.devicesRemove, calls };
  await run({
    ...remove,
    outcome: 'a settled device, held (an SMS-strength session)',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({
      path: '/wallet/v3/auth/devices/remove',
      headers: bySms[index]!,
      body: { device_key: customers[index]!.deviceKey },
    }),
    onAnswer: (index, { body }) => (held[index] = body.data.change_id),
  });
  for (let index = 0; index < calls; index++) {
    await setup(handlers.userChangesCancel, { path: '/c', headers: bySms[index]!, body: { change_id: held[index] } });
  }

  // Past the OTP session's proof of the phone and the strong sessions' freshness.
  await advance(Math.max(app.config.pinResetOtpSessionSeconds, app.config.stepUpMaxAgeSeconds) + 1);
  await run({
    ...reset,
    outcome: 'no proof (400, code 14)',
    expectStatus: 400,
    event: (index) => ({ path: '/wallet/v3/auth/reset_pin', headers: bySms[index]!, body: { pin_type: 1, new_pin: '4826' } }),
  });
  await run({
    endpoint: 'stepUp',
    handler: handlers.stepUp,
    calls,
    outcome: 'stepped up',
    expectStatus: 200,
    event: (index) => {
      const customer = customers[index]!;
      return { path: '/wallet/v3/auth/step_up', headers: withToken(index), body: signedStepUp(customer.keys, customer.deviceKey, '8052') };
    },
    onAnswer: (index, { body }) => (sessions[index] = `Token ${body.data.token.token}`),
  });
  // Setup: a login PIN reset held (a fresh strong session, no proof), left to fall due.
  for (let index = 0; index < calls; index++) {
    await setup(handlers.resetPin, { path: '/r', headers: withToken(index), body: { pin_type: 1, new_pin: '4826' } });
  }
  await advance(app.config.phoneChangeHoldHours * 3600 + 1);
  await run({
    ...pin,
    outcome: 'a held PIN due: put in place, then right',
    expectStatus: 200,
    event: (index) => pinLogin(index, '4826'),
    onAnswer: (index, { body }) => (sessions[index] = `Token ${body.data.token.token}`),
  });
  await run({
    ...remove,
    outcome: 'a device with one session',
    expectStatus: 200,
    event: (index) => ({
      path: '/wallet/v3/auth/devices/remove',
      headers: withToken(index),
      body: { device_key: customers[index]!.deviceKey },
    }),
  });

  /** A step_up body signed by the device. */
  function signedStepUp(keys: ReturnType<typeof newDeviceKeyPair>, deviceKey: string, pinText: string) {
    const timestamp = epochSeconds(clock);
    const nonce = newNonce();
    const signature = signText(keys.privateKey, deviceSignedText('step_up', company.company_id, deviceKey, timestamp, nonce));
    return { device_key: deviceKey, login_pin: pinText, timestamp, nonce, signature };
  }
}
