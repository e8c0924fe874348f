// Property-based hostile input against every endpoint, in process: each generated request must
// get the envelope with a documented status and code (never a 5xx), and a refusal must leave
// the stored data exactly as it was. Every endpoint meets every generator of a hostile part a few
// times (the rest of its request valid), then requests with every part drawn at once. `npm run
// fuzz` runs the mixed requests by the thousand, side by side and under faults.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getPhoneClaim, getUser, type UserRecord } from '../../lib/store/user-store.js';
import { createOwnTable, localClient } from '../harness/dynamodb-local.js';
import { type FaultMode, type FaultProxy, startFaultProxy } from '../harness/fault-proxy.js';
import { acceptedRegistration } from '../harness/hostile-input/bodies.js';
import { hostileRequest, hostileRequestsByGenerator, registrationRequest } from '../harness/hostile-input/requests.js';
import { type EndpointName, PATHS } from '../harness/hostile-input/routes.js';
import { type HostileChecker, hostileChecker, setUpHostileFixture } from '../harness/hostile-input-property.js';
import { randomPhoneNumber, testService } from '../helpers.js';

// A table of the file's own: a check scans it after every request that wrote.
const service = testService({}, { tableName: await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-hostile') });

/** Under faults: the share of the service's DynamoDB requests that meet one, and the faults (none that waits). */
const FAULT_SHARE = 0.25;
const FAULTS: FaultMode[] = ['reset', 'throttle', 'server-error', 'drop-answer'];

/** Per endpoint and generator of a hostile part: each meets this many requests. */
const RUNS_PER_GENERATOR = Number(process.env.HOSTILE_GENERATOR_RUNS || 3);
/** Per endpoint, requests with every part drawn at once; npm run fuzz sends them by the thousand. */
const MIXED_RUNS = Number(process.env.HOSTILE_RUNS || 40);

let checker: HostileChecker;

beforeAll(async () => {
  checker = await hostileChecker(await setUpHostileFixture(service));
});

/** Outcomes each endpoint's generators must reach, so a property cannot pass by testing one path. */
const MUST_REACH: Record<EndpointName, string[]> = {
  userRegister: ['400/1', '400/2', '404/3', '401/4', '400/8', '413/13'],
  loginPhone: ['200', '400/1', '400/2', '404/3', '401/4', '413/13'],
  verifyOtp: ['400/1', '400/2', '404/3', '400/10', '413/13'],
  referralProgram: ['200', '400/1', '400/2', '404/3', '401/4', '403/5'],
  loginPin: ['400/1', '400/2', '404/3', '401/4', '413/13'],
  devices: ['200', '400/2', '404/3', '401/4'],
  devicesRemove: ['400/1', '400/2', '404/3', '401/4', '404/6'],
  changePin: ['400/1', '400/2', '404/3', '401/4', '400/17'],
  resetPin: ['400/1', '400/2', '404/3', '401/4', '400/14'],
  notifications: ['200', '400/1', '400/2', '404/3', '401/4'],
  notificationsRead: ['200', '400/1', '400/2', '404/3', '401/4', '413/13'],
  logout: ['200', '400/1', '400/2', '404/3', '401/4', '413/13'],
  // Its bodies keep an amount of 0, so none reaches the PIN (a wrong one would count).
  transactionAuthorization: ['400/1', '400/2', '404/3', '401/4', '413/13'],
  tokenRefresh: ['400/1', '400/2', '404/3', '401/4', '413/13'],
  userProfile: ['200', '400/2', '404/3', '401/4'],
  userExport: ['200', '400/2', '404/3', '401/4'],
  // The fixture's sessions began by registration: never fresh enough to change the phone.
  userPhoneChange: ['400/1', '400/14', '400/2', '404/3', '401/4', '413/13'],
  // The fixture's user has no pending change: a well-formed change_id is 404 code 6.
  userPhoneChangeCancel: ['400/1', '400/2', '404/3', '401/4', '404/6', '413/13'],
  userChangesCancel: ['400/1', '400/2', '404/3', '401/4', '404/6', '413/13'],
  // The fixture's sessions began by registration: SMS-strength, so each of these needs a strong one (403 code 5).
  userSecurityNotMe: ['400/2', '404/3', '401/4', '403/5'],
  devicesApprove: ['400/1', '400/2', '404/3', '401/4', '403/5'],
  stepUp: ['400/1', '400/2', '404/3', '401/4', '403/5'],
  // The fixture's companies have no webauthn settings: every passkey route but the list answers 400 code 1 naming it.
  passkeysRegisterOptions: ['400/1', '400/2', '404/3', '401/4'],
  passkeysRegister: ['400/1', '400/2', '404/3', '401/4', '413/13'],
  passkeys: ['200', '400/2', '404/3', '401/4'],
  passkeysRemove: ['400/1', '400/2', '404/3', '401/4', '413/13'],
  passkeysLoginOptions: ['400/1', '400/2', '404/3', '413/13'],
  passkeysLogin: ['400/1', '400/2', '404/3', '413/13'],
  // The fixture's session began by registration: never fresh enough to delete the account.
  userDelete: ['400/14', '400/2', '404/3', '401/4', '413/13'],
  userProfileUpdate: ['400/1', '400/2', '404/3', '401/4', '413/13'],
  // The fixture's tokens are customers' and a registered employee's: refused before any role is read.
  adminEmployeeRole: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminEmployeesApprove: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminEmployeesDevicesApprove: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminApprovalsList: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersSearch: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersPhoneRecover: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersPhoneApprove: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersPhoneCancel: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersSessionsEnd: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersStatus: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersDevicesRemove: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersPasskeysRemove: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersRestore: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminUsersView: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminCompanyView: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminCompanyUpdate: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  adminCompanyApprove: ['400/1', '400/2', '404/3', '401/4', '403/5', '413/13'],
  notFound: ['404/6'],
};

describe('hostile input: generated headers, query strings and bodies', () => {
  it.each(Object.keys(PATHS) as EndpointName[])(
    `%s: every hostile-part generator ${RUNS_PER_GENERATOR} times and ${MIXED_RUNS} mixed requests, each answered by the envelope with a documented code, refusals changing nothing`,
    async (endpoint) => {
      const generators = hostileRequestsByGenerator(endpoint, checker.setup.fixture);
      const met: Record<string, number> = {};
      for (const { name, requests } of generators) {
        const property = fc.asyncProperty(requests, async (request) => {
          met[name] = (met[name] ?? 0) + 1;
          await checker.check(request);
        });
        await fc.assert(property, { numRuns: RUNS_PER_GENERATOR });
      }
      await fc.assert(
        fc.asyncProperty(hostileRequest(endpoint, checker.setup.fixture), (request) => checker.check(request)),
        { numRuns: MIXED_RUNS },
      );
      expect(generators.filter(({ name }) => !(met[name]! >= RUNS_PER_GENERATOR)).map(({ name }) => name)).toEqual([]);
      expect(Object.keys(checker.counts[endpoint])).toEqual(expect.arrayContaining(MUST_REACH[endpoint]));
    },
    120_000,
  );
});

describe('hostile input under faults', () => {
  let faulted: HostileChecker;
  let proxy: FaultProxy;
  let direct: DynamoDBDocumentClient;

  beforeAll(async () => {
    const endpoint = inject('dynamodbEndpoint');
    proxy = await startFaultProxy(endpoint);
    direct = DynamoDBDocumentClient.from(localClient(endpoint));
    // One attempt per DynamoDB call: a fault reaches the answer at once, without the SDK's retry
    // and its back-off (npm run fuzz -- --faults runs with the retries and late writes).
    const table = await createOwnTable(endpoint, 'wallet-auth-hostile-faults');
    const service = testService(
      { DYNAMODB_MAX_ATTEMPTS: '1' },
      // Each fault logs an error: hundreds here, expected.
      { tableName: table, dynamodbEndpoint: proxy.endpoint, logLevel: 'SILENT' },
    );
    faulted = await hostileChecker(await setUpHostileFixture(service), { direct, settled: async () => undefined });
    proxy.rule = () => (Math.random() < FAULT_SHARE ? FAULTS[Math.floor(Math.random() * FAULTS.length)]! : 'pass');
  });
  afterAll(async () => {
    await proxy?.close();
    direct?.destroy();
  });

  it.each(Object.keys(PATHS) as EndpointName[])(
    `%s: every hostile-part generator once with ${FAULT_SHARE * 100} % of DynamoDB requests faulted: the envelope with a documented code, 503 code 16 the only 5xx, refusals but 503 changing nothing`,
    async (endpoint) => {
      for (const { requests } of hostileRequestsByGenerator(endpoint, faulted.setup.fixture)) {
        await fc.assert(
          fc.asyncProperty(requests, (request) => faulted.check(request)),
          { numRuns: 1 },
        );
      }
    },
    60_000,
  );

  it('met the faults: some requests answered 503 code 16', () => {
    const unavailable = Object.values(faulted.counts).reduce((sum, outcomes) => sum + (outcomes['503/16'] ?? 0), 0);
    expect(proxy.seen.filter(({ mode }) => mode !== 'pass').length).toBeGreaterThan(0);
    expect(unavailable).toBeGreaterThan(0);
  });
});

// Every attribute a stored user may have: its key and the fields of UserRecord (the compiler keeps
// this list equal to the type). Anything else came from a client and must not be there.
const USER_RECORD_FIELDS: Record<keyof UserRecord, true> = {
  user_id: true,
  company_id: true,
  user_type: true,
  dial_code: true,
  phone_number: true,
  phone_e164: true,
  first_name: true,
  last_name: true,
  email: true,
  account_number_prefix: true,
  password_hash: true,
  login_pin_hash: true,
  login_pin_to_set: true,
  transaction_pin_to_set: true,
  transaction_pin_hash: true,
  status_id: true,
  birth_date: true,
  image: true,
  kyc_status: true,
  country_id: true,
  kyc_process_status: true,
  location_point: true,
  device_type: true,
  device_id: true,
  device_unique_id: true,
  parent_user_id: true,
  referred_by: true,
  referral_code: true,
  strong_login_at: true,
  login_pin_right_at: true,
  referral_count: true,
  phone_verified: true,
  session_version: true,
  profile_version: true,
  device_count: true,
  login_pin_version: true,
  transaction_pin_version: true,
  cretaed_by: true,
  created_at: true,
  updated_at: true,
};
const USER_ATTRIBUTES = new Set(['pk', 'sk', ...Object.keys(USER_RECORD_FIELDS)]);

describe('hostile extras on valid registrations', () => {
  it('registers, stores no unknown field, lets no client set a privilege, and pollutes no prototype', async () => {
    const scans = checker.scans;
    await fc.assert(
      fc.asyncProperty(
        acceptedRegistration(() => randomPhoneNumber()),
        async (body) => {
          const request = registrationRequest(checker.setup.company.company_id, body);
          await checker.check(request, { mayRegister: true });
          const registered = checker.counts.userRegister['200'] ?? 0;
          expect(registered).toBeGreaterThan(0);
          const { phone_number: phone, user_type: userType } = JSON.parse(body) as { phone_number: string; user_type: number };
          // The phone's claim names its one user (read by key: a Scan page of the shared table may not hold it).
          const claim = await getPhoneClaim(service.app.table, checker.setup.company.company_id, `+1${phone}`, userType, true);
          expect(claim?.user_id).toEqual(expect.any(String));
          const user = (await getUser(service.app.table, checker.setup.company.company_id, claim!.user_id))!;
          expect(Object.keys(user).filter((key) => !USER_ATTRIBUTES.has(key))).toEqual([]);
          expect(user).toMatchObject({ kyc_status: 1, status_id: 1, kyc_process_status: 1, referral_count: 0, cretaed_by: user.user_id });
          expect(user.company_id).toBe(checker.setup.company.company_id);
        },
      ),
      // Each run hashes three secrets: no shrinking, which would repeat that for minutes.
      { numRuns: 4, endOnFailure: true },
    );
    // Each registration wrote, so each check read the table (a request that writes nothing skips that).
    expect(checker.scans - scans).toBe(4);
  }, 120_000);
});
