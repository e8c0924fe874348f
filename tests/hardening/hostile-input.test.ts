// Property-based hostile input against every endpoint, in process: each generated request must
// get the envelope with a documented status and code (never a 5xx), and a refusal must leave
// the stored data exactly as it was. `npm run fuzz` runs the same property much longer.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { getUser, type UserRecord } from '../../lib/store/user-store.js';
import { createOwnTable } from '../../scripts/local/dynamodb-local.js';
import {
  acceptedRegistration,
  type EndpointName,
  hostileRequest,
  PATHS,
  registrationRequest,
} from '../../scripts/local/hostile-input-arbitraries.js';
import { type HostileChecker, hostileChecker, setUpHostileFixture } from '../../scripts/local/hostile-input-property.js';
import { randomPhoneNumber, testService } from '../helpers.js';

// A table of the file's own: every check scans it.
const service = testService({}, { tableName: await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-hostile') });

/** Per endpoint; refusals cost a few milliseconds each (no hashing), so this stays quick. */
const RUNS = Number(process.env.HOSTILE_RUNS || 500);

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
  notFound: ['404/6'],
};

describe('hostile input: generated headers, query strings and bodies', () => {
  it.each(Object.keys(PATHS) as EndpointName[])(
    `%s: ${RUNS} requests, each answered by the envelope with a documented code, refusals changing nothing`,
    async (endpoint) => {
      await fc.assert(
        fc.asyncProperty(hostileRequest(endpoint, checker.setup.fixture), (request) => checker.check(request)),
        { numRuns: RUNS },
      );
      expect(Object.keys(checker.counts[endpoint])).toEqual(expect.arrayContaining(MUST_REACH[endpoint]));
    },
    120_000,
  );
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
  referral_count: true,
  phone_verified: true,
  session_version: true,
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
    await fc.assert(
      fc.asyncProperty(
        acceptedRegistration(() => randomPhoneNumber()),
        async (body) => {
          const request = registrationRequest(checker.setup.company.company_id, body);
          await checker.check(request, { mayRegister: true });
          const registered = checker.counts.userRegister['200'] ?? 0;
          expect(registered).toBeGreaterThan(0);
          const phone = JSON.parse(body).phone_number as string;
          const { Items } = await service.app.table.client.send(
            new ScanCommand({
              TableName: service.app.table.name,
              FilterExpression: 'phone_e164 = :phone',
              ExpressionAttributeValues: { ':phone': `+1${phone}` },
            }),
          );
          expect(Items).toHaveLength(1);
          const user = (await getUser(service.app.table, checker.setup.company.company_id, Items![0]!.user_id))!;
          expect(Object.keys(user).filter((key) => !USER_ATTRIBUTES.has(key))).toEqual([]);
          expect(user).toMatchObject({ kyc_status: 1, status_id: 1, kyc_process_status: 1, referral_count: 0, cretaed_by: user.user_id });
          expect(user.company_id).toBe(checker.setup.company.company_id);
        },
      ),
      // Each run hashes three secrets: no shrinking, which would repeat that for minutes.
      { numRuns: 4, endOnFailure: true },
    );
  }, 120_000);
});
