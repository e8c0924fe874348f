// The server secret of a deployed stage: an SSM Parameter Store SecureString read with the real
// @aws-sdk/client-ssm from a loopback endpoint that answers as SSM does. Each service here is one
// container; tests/e2e/operations-over-http.test.ts covers the same through serverless-offline.
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { readConfig } from '../../lib/config.js';
import { verifyPin } from '../../lib/secrets/hashing.js';
import { userKey } from '../../lib/store/keys.js';
import { getUser } from '../../lib/store/user-store.js';
import { captureLogs } from '../hardening/log-capture.js';
import { type FakeSsm, startFakeSsm } from '../harness/ssm-fake.js';
import {
  expectUnavailable,
  type InProcessService,
  inProcessService,
  invoke,
  newCompany,
  sampleRegistration,
  signUp,
  TEST_HASH_COST,
  testEnvironment,
} from '../helpers.js';

let ssm: FakeSsm;
let parameter: string;

beforeAll(async () => {
  ssm = await startFakeSsm();
});
afterAll(() => ssm.close());

/** A new container reading the secret from the fake SSM (no SERVER_SECRET, no file). */
function container(): InProcessService {
  const environment = testEnvironment({ SERVER_SECRET_PARAMETER: parameter, SSM_ENDPOINT: ssm.endpoint });
  delete environment.SERVER_SECRET;
  return inProcessService(readConfig(environment), { hashCost: TEST_HASH_COST });
}

const register = (service: InProcessService, company: Company) =>
  invoke(service.handlers.userRegister, {
    path: '/wallet/v3/auth/user_register',
    headers: { CompanyID: company.company_id },
    body: sampleRegistration(),
  });

describe('a secret that cannot be used', () => {
  let company: Company;
  beforeAll(async () => {
    parameter = `/wallet-auth/test-${randomBytes(4).toString('hex')}/server-secret`;
    company = await newCompany(container());
  });

  it('answers 503 code 16 and logs why: no parameter, access denied, or under 32 bytes of key material', async () => {
    const cases: [string, () => void][] = [
      ['ParameterNotFound', () => {}],
      ['AccessDeniedException', () => (ssm.failWith = 'AccessDeniedException')],
      ['16 bytes of key material', () => ssm.put(parameter, randomBytes(16).toString('hex'))],
    ];
    for (const [reason, arrange] of cases) {
      arrange();
      const logs = captureLogs();
      try {
        expectUnavailable(await register(container(), company));
      } finally {
        logs.stop();
        ssm.failWith = undefined;
      }
      expect(logs.text()).toContain('server secret unavailable');
      expect(logs.text()).toContain(reason);
    }
  });
});

describe('a secret in SSM', () => {
  let company: Company;
  beforeAll(async () => {
    parameter = `/wallet-auth/test-${randomBytes(4).toString('hex')}/server-secret`;
    ssm.put(parameter, randomBytes(32).toString('base64'));
    company = await newCompany(container());
  });

  it('is read once per container, on first use', async () => {
    ssm.requests.length = 0;
    const service = container();
    expect(ssm.requests).toEqual([]);
    for (let index = 0; index < 3; index++) await signUp(service, company);
    expect(ssm.requests).toEqual([parameter]);
  });

  it('retries a throttled read with backoff: the request that met it still succeeds', async () => {
    ssm.requests.length = 0;
    ssm.failWith = 'ThrottlingException';
    ssm.failuresLeft = 2;
    await signUp(container(), company);
    expect(ssm.requests).toEqual([parameter, parameter, parameter]);
  });

  it('answers a read that failed from memory for 5 s: a throttled SSM is not asked on every request', async () => {
    const service = container();
    // Frozen: the hold is measured on the service's clock, not on a loaded machine's.
    service.clock.freeze(Math.floor(Date.now() / 1000));
    ssm.requests.length = 0;
    ssm.failWith = 'ThrottlingException';
    try {
      expectUnavailable(await register(service, company));
      // Three attempts, with backoff, then the failure is the answer.
      expect(ssm.requests).toHaveLength(3);
      for (let call = 0; call < 5; call++) expectUnavailable(await register(service, company));
      service.clock.advance(4);
      expectUnavailable(await register(service, company));
      expect(ssm.requests).toHaveLength(3);
    } finally {
      ssm.failWith = undefined;
    }
    service.clock.advance(2);
    expect((await register(service, company)).status).toBe(200);
    expect(ssm.requests).toHaveLength(4);
  });

  it('rotates: hashes name their version, and a new container still verifies what the old version made', async () => {
    const before = container();
    const account = await signUp(before, company);
    const stored = async (service: InProcessService, userId: string) =>
      (await service.app.table.client.send(new GetCommand({ TableName: service.app.table.name, Key: userKey(company.company_id, userId) })))
        .Item!;
    const oldPinHash = (await stored(before, account.userId)).login_pin_hash as string;
    const oldVersion = Number(oldPinHash.split('$')[1]);

    const newVersion = ssm.put(parameter, randomBytes(32).toString('hex'));
    const after = container();
    const newAccount = await signUp(after, company);
    expect(((await stored(after, newAccount.userId)).login_pin_hash as string).split('$')[1]).toBe(String(newVersion));
    ssm.requests.length = 0;
    expect(await verifyPin(after.app.keys, String(account.registration.login_pin), oldPinHash)).toBe(true);
    expect(await verifyPin(after.app.keys, '000000', oldPinHash)).toBe(false);
    expect(ssm.requests).toEqual([`${parameter}:${oldVersion}`]);
    // The old container keeps the version it read: what it makes still verifies everywhere.
    const late = await signUp(before, company);
    expect(((await stored(before, late.userId)).login_pin_hash as string).split('$')[1]).toBe(String(oldVersion));
  });

  it('asks SSM for no version above the current one (a forged cursor costs no GetParameter); a newer one is seen after a minute', async () => {
    const old = container();
    await signUp(old, company);
    const { version: current } = await old.app.keys.current('cursor');
    ssm.requests.length = 0;
    for (let version = current + 1; version <= current + 20; version++) {
      expect(await old.app.keys.atVersion('cursor', version)).toBeUndefined();
    }
    expect(ssm.requests).toEqual([]);

    // A rotation: a new container hashes under the new version; the old one verifies that hash
    // once it has read the current version again, which it does at most once a minute.
    ssm.put(parameter, randomBytes(32).toString('hex'));
    const fresh = container();
    const account = await signUp(fresh, company);
    const { login_pin_hash: newHash } = (await getUser(fresh.app.table, company.company_id, account.userId))!;
    expect(newHash.split('$')[1]).toBe(String(current + 1));
    ssm.requests.length = 0;
    const pin = String(account.registration.login_pin);
    expect(await verifyPin(old.app.keys, pin, newHash)).toBe(false);
    expect(ssm.requests).toEqual([]);
    old.clock.advance(61);
    expect(await verifyPin(old.app.keys, pin, newHash)).toBe(true);
    expect(ssm.requests).toEqual([parameter]);
  });
});
