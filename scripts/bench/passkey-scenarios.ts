import { epochSeconds } from '../../lib/clock.js';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { newDeviceKeyPair, signedLoginPin } from '../../tests/harness/device-keys.js';
import { type DpopKey, dpopProof, newDpopKey } from '../../tests/harness/dpop-proofs.js';
import type { InProcessService } from '../../tests/harness/in-process-service.js';
import { SoftAuthenticator } from '../../tests/harness/soft-authenticator.js';
import { setup } from './account-change-scenarios.js';
import type { Answer, ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of passkeys (API contract 3.16) and of tokens bound by DPoP (3.17): a
// passkey registered from a strong session (its options, then the attestation), a login with it
// (its options with no phone typed, then the assertion), the same login with a DPoP proof, and the
// bound session's refresh with a proof by the same key. Each customer holds a software
// authenticator (tests/harness/soft-authenticator.ts); proofs are made before each row, as a client
// makes them, so the rows time the service's side only. Shared by the bench and
// tests/passkeys/round-trips.test.ts, which checks each against its documented minimum.

const LOGIN_PIN = '2580';
/** The bench company's relying party: what its app's associated domain would be. */
const RP_ID = 'wallet.example.com';
const ORIGIN = `https://${RP_ID}`;
const REFRESH = '/wallet/v3/auth/token/refresh';
const PASSKEY_LOGIN = '/wallet/v3/auth/passkeys/login';

export async function runPasskeyScenarios(
  service: InProcessService,
  company: Company,
  phones: string[],
  run: (spec: ScenarioSpec) => Promise<unknown>,
): Promise<void> {
  const { app, clock, handlers } = service;
  const calls = phones.length;
  const headers = { CompanyID: company.company_id };
  await updateCompanySettings(app.table, clock, company.company_id, { webauthn: { rp_id: RP_ID, origins: [ORIGIN] } });
  clock.advance(app.config.companyCacheSeconds + 1);
  await app.companies.require(company.company_id);

  // Setup, not measured: a customer with a bound device per phone, signed in strongly by a PIN login on it.
  const strong: Record<string, string>[] = [];
  for (const phone of phones) {
    const keys = newDeviceKeyPair();
    const body = {
      dial_code: '+1',
      phone_number: phone,
      user_type: 2,
      first_name: 'Passkey',
      last_name: 'Bench',
      password: 'correct horse battery',
      login_pin: LOGIN_PIN,
      transaction_pin: '1397',
      device_public_key: keys.publicKey,
    };
    const registered = await setup(handlers.userRegister, { path: '/r', headers, body });
    const device = { privateKey: keys.privateKey, deviceKey: registered.body.data.device_key as string };
    const signed = signedLoginPin(device, company.company_id, LOGIN_PIN, { timestamp: epochSeconds(clock) });
    const login = await setup(handlers.loginPin, { path: '/p', headers, body: signed });
    strong.push({ ...headers, Authorization: `Token ${login.body.data.token.token}` });
  }

  const authenticators = phones.map(() => new SoftAuthenticator());
  const options: Record<string, unknown>[] = [];
  const keepOptions = (index: number, { body }: Answer) => (options[index] = body.data.options);
  await run({
    endpoint: 'passkeysRegisterOptions',
    handler: handlers.passkeysRegisterOptions,
    calls,
    outcome: 'creation options',
    expectStatus: 200,
    event: (index) => ({ path: '/wallet/v3/auth/passkeys/register/options', headers: strong[index]!, body: {} }),
    onAnswer: keepOptions,
  });
  await run({
    endpoint: 'passkeysRegister',
    handler: handlers.passkeysRegister,
    calls,
    outcome: 'registered',
    expectStatus: 200,
    event: (index) => ({
      path: '/wallet/v3/auth/passkeys/register',
      headers: strong[index]!,
      body: authenticators[index]!.create(options[index]!, ORIGIN),
    }),
  });

  const loginOptions = { endpoint: 'passkeysLoginOptions' as const, handler: handlers.passkeysLoginOptions, calls };
  const optionsEvent = () => ({ path: '/wallet/v3/auth/passkeys/login/options', headers, body: {} });
  const login = { endpoint: 'passkeysLogin' as const, handler: handlers.passkeysLogin, calls };
  await run({ ...loginOptions, outcome: 'no phone typed (discoverable)', expectStatus: 200, event: optionsEvent, onAnswer: keepOptions });
  await run({
    ...login,
    outcome: 'right assertion',
    expectStatus: 200,
    event: (index) => ({ path: PASSKEY_LOGIN, headers, body: authenticators[index]!.get(options[index]!, ORIGIN) }),
  });

  // The same login with a DPoP proof (its jti spent once): the session bound to the proof's key.
  const issuer = new URL(app.config.tokenIssuer).origin;
  const proofs = async (keys: DpopKey[], path: string) =>
    Promise.all(keys.map((key) => dpopProof(key, { htm: 'POST', htu: `${issuer}${path}`, iat: epochSeconds(clock) })));
  const dpopKeys = await Promise.all(phones.map(() => newDpopKey()));
  await run({ ...loginOptions, outcome: 'no phone typed (discoverable)', expectStatus: 200, event: optionsEvent, onAnswer: keepOptions });
  const loginProofs = await proofs(dpopKeys, PASSKEY_LOGIN);
  const refreshTokens: string[] = [];
  await run({
    ...login,
    outcome: 'right assertion, bound (DPoP)',
    expectStatus: 200,
    event: (index) => ({
      path: PASSKEY_LOGIN,
      headers: { ...headers, DPoP: loginProofs[index]! },
      body: authenticators[index]!.get(options[index]!, ORIGIN),
    }),
    onAnswer: (index, { body }) => (refreshTokens[index] = body.data.refresh_token),
  });
  const refreshProofs = await proofs(dpopKeys, REFRESH);
  await run({
    endpoint: 'tokenRefresh',
    handler: handlers.tokenRefresh,
    calls,
    outcome: 'new pair, bound (DPoP)',
    expectStatus: 200,
    event: (index) => ({
      path: REFRESH,
      headers: { ...headers, DPoP: refreshProofs[index]! },
      body: { refresh_token: refreshTokens[index] },
    }),
  });
}
