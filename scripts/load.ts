// npm run load [-- --seconds 30 --connections 20 --workers]
//
// Load with nothing lost: DynamoDB Local (in memory) and the service under serverless-offline
// on free loopback ports, many concurrent HTTP clients for a bounded time (autocannon), then a
// check of DynamoDB: every registration answered 200 exists exactly once with its phone claim,
// no duplicate got in, every identity is complete, and no answer was a 5xx or left the
// envelope. Prints the figures; exits 1 on any lost or doubled write, 5xx, or lost request.
// Handlers run inside serverless-offline's process, sharing their clients as concurrent calls
// would in one busy container; --workers gives each concurrent call a Lambda-like instance of
// its own instead (a cold start each, which on 2 cores leaves little time for the load).
import { randomBytes, randomInt } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { endpoints } from '../lib/api/endpoints.js';
import { createApp } from '../lib/app.js';
import { createCompany } from '../lib/companies/companies.js';
import { readConfig } from '../lib/config.js';
import { phoneClaimKey } from '../lib/store/keys.js';
import { toE164 } from '../lib/users/phone-plan.js';
import { createLocalTable, freePort, type LocalDynamoDb, localClient, startLocalDynamoDb } from '../tests/harness/dynamodb-local.js';
import { localEnvironment } from '../tests/harness/environment.js';
import { type OfflineService, startOfflineService } from '../tests/harness/offline-service.js';
import { identityProblems, type StoredItem, scanItems } from '../tests/harness/table-snapshot.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    connections: { type: 'string', default: '20' },
    workers: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
if (!Number.isInteger(seconds) || seconds < 1 || !Number.isInteger(connections) || connections < 2) {
  console.error('usage: npm run load -- [--seconds N (>= 1)] [--connections N (>= 2)]');
  process.exit(2);
}

// --- autocannon, typed for what is used here (the package ships no types) ---------------------

interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: CannonRequest, context: Record<string, any>) => CannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, any>) => void;
}
interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface CannonResult {
  errors: number;
  timeouts: number;
  duration: number;
  latency: Histogram;
  statusCodeStats: Record<string, { count: number }>;
}
interface CannonInstance {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTime: number) => void): void;
  stop(): void;
}
type Autocannon = (
  options: { url: string; connections: number; duration: number; timeout: number; requests: CannonRequest[] },
  done: (error: Error | null, result: CannonResult) => void,
) => CannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// --- the run ----------------------------------------------------------------------------------

const STAGE = 'load';
const TABLE = `wallet-auth-${STAGE}`;

const usedPhones = new Set<string>();
/** A US number in area 202, valid under libphonenumber and never used before in this run. */
function freshPhone(): string {
  for (;;) {
    const candidate = `202${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
    if (!usedPhones.has(candidate) && toE164('+1', candidate)) {
      usedPhones.add(candidate);
      return candidate;
    }
  }
}

function registration(phone: string, email: string): string {
  return JSON.stringify({
    dial_code: '+1',
    phone_number: phone,
    user_type: 2,
    first_name: 'Load',
    last_name: 'Tester',
    password: 'correct horse battery',
    email,
    login_pin: '2580',
    transaction_pin: '1397',
  });
}

interface Tally {
  statuses: Record<string, number>;
  /** user_id -> E.164 phone of every registration answered 200. */
  registered: Map<string, string>;
  /** E.164 phones of new registrations sent, and of those that got any answer. */
  sentPhones: Set<string>;
  answeredPhones: Set<string>;
  duplicatesRefused: number;
  duplicatesAccepted: string[];
  notEnvelope: string[];
  latencies: number[];
  registrationLatencies: number[];
}

/** The parsed envelope, or undefined when the body is anything else. */
function envelopeOf(body: string): { success: 0 | 1; error: number[]; data: Record<string, any> } | undefined {
  try {
    const parsed = JSON.parse(body);
    const ok =
      (parsed.success === 1 || parsed.success === 0) && Array.isArray(parsed.error) && parsed.data && typeof parsed.data === 'object';
    return ok ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A percentile of sorted latencies, in whole milliseconds. */
function percentile(sorted: number[], share: number): number {
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!) : 0;
}

async function seedAccounts(baseUrl: string, headers: Record<string, string>) {
  const post = async (path: string, body: string, extra: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const referrerPhone = freshPhone();
  const referrer = await post(endpoints.userRegister.path, registration(referrerPhone, `referrer.${referrerPhone}@example.com`));
  if (referrer.status !== 200) throw new Error(`seeding failed: ${JSON.stringify(referrer.body)}`);
  const seeded = [{ userId: referrer.body.data.user_id as string, phone: referrerPhone }];
  for (let index = 0; index < 2; index++) {
    const phone = freshPhone();
    const body = JSON.parse(registration(phone, `referred.${phone}@example.com`));
    const referred = await post(endpoints.userRegister.path, JSON.stringify({ ...body, referral_code: referrer.body.data.referral_code }));
    if (referred.status !== 200) throw new Error(`seeding failed: ${JSON.stringify(referred.body)}`);
    seeded.push({ userId: referred.body.data.user_id, phone });
  }
  return { seeded, referrerToken: `Token ${referrer.body.data.token.token as string}` };
}

function run(options: Parameters<Autocannon>[0], tally: Tally, forRegistrations: boolean): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on('response', (_client, status, _bytes, responseTime) => {
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
      tally.latencies.push(responseTime);
      if (forRegistrations) tally.registrationLatencies.push(responseTime);
    });
  });
}

async function main(): Promise<number> {
  let dynamo: LocalDynamoDb | undefined;
  let service: OfflineService | undefined;
  const outbox = join(tmpdir(), `wallet-load-outbox-${randomBytes(4).toString('hex')}.jsonl`);
  let cleaned: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaned ??= (async () => {
      await service?.stop();
      await dynamo?.stop();
      rmSync(outbox, { force: true });
    })());
  // Whatever ends the run, the child processes end with it.
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
  process.once('uncaughtException', (error) => {
    console.error(`load: ${error.stack}`);
    void cleanUp().then(() => process.exit(1));
  });

  try {
    dynamo = await startLocalDynamoDb({ port: await freePort() });
    const client = localClient(dynamo.endpoint);
    await createLocalTable(dynamo.endpoint, TABLE);
    const env = localEnvironment({
      stage: STAGE,
      tableName: TABLE,
      dynamodbEndpoint: dynamo.endpoint,
      outboxFile: outbox,
      logLevel: 'WARN',
      settings: {
        // serverless-offline serves every concurrent call from one process, whose 4 libuv threads
        // would be held by the registrations' scrypt work, leaving file reads (module loading, the
        // SDK's config, the SMS outbox) queued past the Lambda timeout. A Lambda container serves
        // one call at a time and has no such queue; more threads emulate that better.
        UV_THREADPOOL_SIZE: '64',
        // Every client is this machine (one address), and most numbers are Washington's (area 202).
        OTP_SENDS_PER_ADDRESS_PER_HOUR: '0',
        OTP_VERIFIES_PER_ADDRESS: '0',
        OTP_SENDS_PER_PREFIX_PER_HOUR: '0',
      },
    });
    const app = createApp(readConfig(env));
    const company = await createCompany(app.table, app.clock, 'load test');
    service = await startOfflineService({ stage: STAGE, env, args: values.workers ? [] : ['--useInProcess'] });
    const headers = { 'content-type': 'application/json', companyid: company.company_id };
    const { seeded, referrerToken } = await seedAccounts(service.baseUrl, headers);

    const tally: Tally = {
      statuses: {},
      registered: new Map(),
      sentPhones: new Set(),
      answeredPhones: new Set(),
      duplicatesRefused: 0,
      duplicatesAccepted: [],
      notEnvelope: [],
      latencies: [],
      registrationLatencies: [],
    };
    const registeredPhones = seeded.map((account) => account.phone);
    const checkEnvelope = (status: number, body: string, request: string) => {
      const envelope = envelopeOf(body);
      if (!envelope) tally.notEnvelope.push(`${request}: ${status} ${body.slice(0, 160)}`);
      return envelope;
    };

    // A few clients register (each registration costs about 0.3 s of CPU in scrypt hashes);
    // the rest send codes, guess codes and page the referral list.
    const registering = Math.max(1, Math.round(connections / 5));
    const registrations: CannonRequest = {
      method: 'POST',
      path: endpoints.userRegister.path,
      headers,
      setupRequest: (request, context) => {
        context.duplicate = registeredPhones.length > 0 && Math.random() < 0.2;
        context.phone = context.duplicate ? registeredPhones[randomInt(registeredPhones.length)]! : freshPhone();
        if (!context.duplicate) tally.sentPhones.add(`+1${context.phone}`);
        return { ...request, body: registration(context.phone, `load.${randomBytes(6).toString('hex')}@example.com`) };
      },
      onResponse: (status, body, context) => {
        tally.answeredPhones.add(`+1${context.phone}`);
        const envelope = checkEnvelope(status, body, context.duplicate ? 'duplicate registration' : 'registration');
        if (status !== 200 || !envelope) {
          if (context.duplicate && status === 409) tally.duplicatesRefused++;
          return;
        }
        if (context.duplicate) tally.duplicatesAccepted.push(context.phone);
        tally.registered.set(envelope.data.user_id, `+1${context.phone}`);
        registeredPhones.push(context.phone);
      },
    };
    const sessions: CannonRequest = {
      method: 'POST',
      path: endpoints.loginPhone.path,
      headers,
      setupRequest: (request, context) => {
        const phone = registeredPhones[randomInt(registeredPhones.length)]!;
        const pick = randomInt(100);
        const post = (kind: string, path: string, body: object, extra: Record<string, string> = {}) => {
          context.request = kind;
          return { ...request, method: 'POST', path, headers: { ...headers, ...extra }, body: JSON.stringify(body) };
        };
        if (pick < 30)
          return post('login code', endpoints.loginPhone.path, { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 });
        if (pick < 45)
          return post('verification code', endpoints.loginPhone.path, {
            dial_code: '+1',
            phone_number: freshPhone(),
            user_type: 2,
            otp_type: 2,
          });
        if (pick < 60) {
          const guess = String(randomInt(1_000_000)).padStart(6, '0');
          return post('code guess', endpoints.verifyOtp.path, {
            dial_code: '+1',
            phone_number: phone,
            user_type: 2,
            otp_type: 1,
            otp: guess,
          });
        }
        if (pick < 95) {
          const cursor = context.cursor && pick < 80 ? `&cursor=${encodeURIComponent(context.cursor)}` : '';
          context.request = 'referral list';
          return {
            ...request,
            method: 'GET',
            path: `${endpoints.referralProgram.path}?limit=1${cursor}`,
            headers: { ...headers, authorization: referrerToken },
            body: undefined,
          };
        }
        return post('bad CompanyID', endpoints.loginPhone.path, {}, { companyid: 'not-a-company' });
      },
      onResponse: (status, body, context) => {
        const cursor = checkEnvelope(status, body, context.request)?.data.next_cursor;
        if (cursor !== undefined) context.cursor = cursor;
      },
    };

    console.log(`load: ${connections} connections (${registering} registering) for ${seconds} s against ${service.baseUrl}`);
    const started = performance.now();
    const common = { url: service.baseUrl, duration: seconds, timeout: 30 };
    const results = await Promise.all([
      run({ ...common, connections: registering, requests: [registrations] }, tally, true),
      run({ ...common, connections: connections - registering, requests: [sessions] }, tally, false),
    ]);
    const elapsed = (performance.now() - started) / 1000;

    // What DynamoDB holds now, read directly.
    const items = await scanItems(DynamoDBDocumentClient.from(client), TABLE, company.company_id);
    client.destroy();
    const users = items.filter((item) => item.sk === 'PROFILE');
    const claimOf = (phone: string) => items.find((item: StoredItem) => item.pk === phoneClaimKey(company.company_id, phone, 2).pk);
    const lost: string[] = [];
    for (const [userId, phone] of tally.registered) {
      const copies = users.filter((user) => user.user_id === userId);
      const samePhone = users.filter((user) => user.phone_e164 === phone);
      if (copies.length !== 1 || samePhone.length !== 1 || claimOf(phone)?.user_id !== userId) {
        lost.push(`${userId} (${phone}): ${copies.length} stored, ${samePhone.length} with its phone, claim ${claimOf(phone)?.user_id}`);
      }
    }
    // A user stored beyond the 200s is lost work only if no request for its phone was still in
    // flight when the run's time ran out (those are answered after the counting stops).
    const seededIds = new Set(seeded.map((account) => account.userId));
    const beyond = users.filter((user) => !tally.registered.has(user.user_id as string) && !seededIds.has(user.user_id as string));
    const inFlight = beyond.filter(
      (user) => tally.sentPhones.has(user.phone_e164 as string) && !tally.answeredPhones.has(user.phone_e164 as string),
    );
    const unexpectedUsers = beyond.length - inFlight.length;
    const invariants = identityProblems(items, company.company_id);

    const total = Object.values(tally.statuses).reduce((sum, count) => sum + count, 0);
    const fiveHundreds = Object.entries(tally.statuses).filter(([status]) => Number(status) >= 500);
    const requestErrors = results.reduce((sum, result) => sum + result.errors, 0);
    const timeouts = results.reduce((sum, result) => sum + result.timeouts, 0);
    const sorted = [...tally.latencies].sort((a, b) => a - b);
    const registrationSorted = [...tally.registrationLatencies].sort((a, b) => a - b);
    const byStatus = Object.entries(tally.statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join('  ');

    console.log(`requests       ${total} in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(1)}/s)`);
    console.log(`by status      ${byStatus}`);
    console.log(`latency        p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms (all requests)`);
    console.log(
      `               p50 ${percentile(registrationSorted, 0.5)} ms, p99 ${percentile(registrationSorted, 0.99)} ms (registrations)`,
    );
    console.log(
      `registrations  ${tally.registered.size} answered 200, ${tally.duplicatesRefused} duplicates refused with 409, ${tally.duplicatesAccepted.length} duplicates accepted`,
    );
    console.log(`request errors ${requestErrors} (timeouts ${timeouts}), answers outside the envelope ${tally.notEnvelope.length}`);
    console.log(
      `DynamoDB       ${users.length} users (${seeded.length} seeded): ${lost.length} of the 200s missing or doubled, ${unexpectedUsers} unexpected, ${inFlight.length} in flight at the stop, ${invariants.length} broken identities`,
    );

    const failures = [
      ...fiveHundreds.map(([status, count]) => `${count} answers with status ${status}`),
      ...lost.map((line) => `lost or doubled: ${line}`),
      ...(unexpectedUsers !== 0 ? [`${unexpectedUsers} users stored beyond the 200s`] : []),
      ...tally.duplicatesAccepted.map((phone) => `duplicate accepted: ${phone}`),
      ...invariants,
      ...tally.notEnvelope.map((answer) => `not the envelope: ${answer}`),
      ...(requestErrors > 0 ? [`${requestErrors} requests got no answer`] : []),
      ...(tally.registered.size === 0 ? ['no registration succeeded'] : []),
    ];
    if (failures.length) {
      console.error(`FAILED\n  ${failures.slice(0, 20).join('\n  ')}`);
      if (process.env.LOAD_SERVICE_LOG) writeFileSync(process.env.LOAD_SERVICE_LOG, service.output());
      return 1;
    }
    console.log('result         OK: every 200 registration stored exactly once, no 5xx, nothing lost');
    return 0;
  } finally {
    await cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`load: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
