import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { newDeviceKeyPair, signedLoginPin } from '../../tests/harness/device-keys.js';
import { codeIn, httpEvent, type InProcessService, lambdaContext, outboxMessages } from '../../tests/harness/in-process-service.js';
import type { Answer, ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of trusted devices and PINs (API contract 3.6, 3.7), in an order where
// each leaves what the next needs: customers with a bound device, PIN logins (right, wrong, locked,
// forged), the device list, PIN changes and resets, removals. Shared by the bench and
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
  const setup = async (handler: (typeof handlers)['userRegister'], input: Parameters<typeof httpEvent>[0]): Promise<Answer> => {
    const result = await handler(httpEvent(input), lambdaContext());
    if (result.statusCode !== 200) throw new Error(`setup call answered ${result.statusCode}: ${result.body}`);
    return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
  };
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
  const changeBody = (current: string) => ({ pin_type: 2, current_pin: current, new_pin: '730264' });
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
    outcome: 'no proof (400, code 14)',
    expectStatus: 400,
    event: (index) => ({ path: '/wallet/v3/auth/reset_pin', headers: withToken(index), body: { pin_type: 1, new_pin: '8052' } }),
  });
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
    endpoint: 'devicesRemove',
    handler: handlers.devicesRemove,
    calls,
    outcome: 'a device with one session',
    expectStatus: 200,
    event: (index) => ({
      path: '/wallet/v3/auth/devices/remove',
      headers: withToken(index),
      body: { device_key: customers[index]!.deviceKey },
    }),
  });
}
