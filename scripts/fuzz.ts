// npm run fuzz [-- --runs 5000 --seconds 0 --seed N --endpoint userRegister --faults 0.1]
// npm run fuzz -- --clients 10 --total 100000 [--faults 0.1 --seed N --endpoint ... --live 10]
//
// The long run of the hostile-input property that `npm test` runs a few hundred times per
// endpoint (tests/hardening/hostile-input.test.ts), with the same generators and checks: every
// generated request gets the envelope with a documented status and code, never a 5xx, and a
// refusal changes nothing stored. Runs in process against its own in-memory DynamoDB Local.
// Prints the outcomes per endpoint; on a failure, the counterexample and the seed to replay it.
// With --faults S, a share S of the service's DynamoDB requests go wrong in the fault proxy
// (tests/harness/fault-proxy.ts) as a real network's do: then 503 code 16 with Retry-After is a
// documented answer too, and a 503's outcome is unknown (it may have been applied), so it is not
// held to "a refusal changes nothing". The checks read the table directly, past the proxy.
// With --clients N, N clients send --total requests side by side, the endpoints in turn: each
// answer is checked as it comes, and what is stored once at the end (every company's items whole),
// since one request's changes cannot be told apart from its neighbours'. Every other round a client
// sends --live requests (per endpoint) of a live account of its own instead, valid but for one part
// made hostile (tests/harness/live-requests.ts), so each endpoint's success path meets the faults
// too; the run prints how many of each endpoint's requests reached a 200.
import { randomBytes, randomInt } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { createLocalTable, freePort, localClient, startLocalDynamoDb } from '../tests/harness/dynamodb-local.js';
import { localConfig } from '../tests/harness/environment.js';
import { SHARED_FAULTS, startFaultProxy } from '../tests/harness/fault-proxy.js';
import { acceptedRegistration } from '../tests/harness/hostile-input/bodies.js';
import { hostileRequest, registrationRequest } from '../tests/harness/hostile-input/requests.js';
import { type EndpointName, PATHS } from '../tests/harness/hostile-input/routes.js';
import {
  concurrentAnswerChecker,
  type FaultedRun,
  type HostileSetup,
  hostileChecker,
  setUpHostileFixture,
} from '../tests/harness/hostile-input-property.js';
import { inProcessService, randomPhoneNumber } from '../tests/harness/in-process-service.js';
import { LiveClient, type SendChecked, TextInbox, tallyOf } from '../tests/harness/live-requests.js';
import { dropMetricLines } from '../tests/harness/metric-lines.js';
import { table } from './bench/report.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '0' },
    seed: { type: 'string' },
    endpoint: { type: 'string', multiple: true },
    accepted: { type: 'string', default: '20' },
    faults: { type: 'string', default: '0' },
    clients: { type: 'string', default: '1' },
    total: { type: 'string', default: '100000' },
    live: { type: 'string', default: '10' },
  },
});
const clients = Number(values.clients);
const total = Number(values.total);
const runs = Number(values.runs);
const seconds = Number(values.seconds);
const acceptedRuns = Number(values.accepted);
const faultShare = Number(values.faults);
const liveRequests = Number(values.live);
const seed = values.seed === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(values.seed);
if (
  ![runs, seconds, acceptedRuns, seed, clients, total, liveRequests].every(Number.isInteger) ||
  runs < 1 ||
  liveRequests < 0 ||
  clients < 1 ||
  total < 1 ||
  !(faultShare >= 0 && faultShare < 1)
) {
  console.error(
    'usage: npm run fuzz -- [--runs N per endpoint] [--seconds N per endpoint, 0: no limit] [--seed N] [--endpoint NAME ...] [--accepted N] [--faults 0-0.99] [--clients N --total N --live N]',
  );
  process.exit(2);
}

/** An endpoint's outcomes, "status/code: count" in order. */
const outcomesOf = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([outcome, count]) => `${outcome}: ${count}`)
    .join('  ');
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

async function main(): Promise<number> {
  dropMetricLines();
  const dynamo = await startLocalDynamoDb({ port: await freePort() });
  const proxy = faultShare > 0 ? await startFaultProxy(dynamo.endpoint) : undefined;
  const direct = DynamoDBDocumentClient.from(localClient(dynamo.endpoint));
  const faultsByKind: Record<string, number> = {};
  const outbox = join(tmpdir(), `wallet-fuzz-outbox-${randomBytes(4).toString('hex')}.jsonl`);
  try {
    const config = localConfig({
      stage: 'fuzz',
      dynamodbEndpoint: proxy?.endpoint ?? dynamo.endpoint,
      outboxFile: outbox,
      // Refusals are logged at INFO: thousands of lines that say nothing here.
      logLevel: 'ERROR',
      // Every generated request comes from one address: its limits would stop the run.
      settings: { COMPANY_CACHE_SECONDS: '0', OTP_SENDS_PER_ADDRESS_PER_HOUR: '0', OTP_VERIFIES_PER_ADDRESS: '0' },
    });
    await createLocalTable(dynamo.endpoint, config.tableName);
    const inbox = new TextInbox();
    const live = clients > 1 && liveRequests > 0;
    // Live accounts send thousands of codes to numbers of their own: the company's hourly SMS
    // ceilings would refuse them (its own limits; every number's own limits stay on).
    const setup = await setUpHostileFixture(
      inProcessService(config, { sms: inbox.send }),
      live ? { limits: { sms_per_hour: 1_000_000, sms_per_prefix_per_hour: 0 } } : {},
    );
    let faulted: FaultedRun | undefined;
    if (proxy) {
      // Set up without faults; from here a share of the service's requests meet one.
      let lateUntil = 0;
      proxy.lateMs = config.dynamodbTimeoutMs + 300;
      proxy.rule = () => {
        if (Math.random() >= faultShare) return 'pass';
        const mode = SHARED_FAULTS[randomInt(SHARED_FAULTS.length)]!;
        faultsByKind[mode] = (faultsByKind[mode] ?? 0) + 1;
        if (mode === 'late') lateUntil = performance.now() + proxy.lateMs + 300;
        return mode;
      };
      const settled = async () => {
        const wait = lateUntil - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      };
      faulted = { direct, settled };
    }
    const endpoints = (values.endpoint ?? Object.keys(PATHS)) as EndpointName[];
    const unknown = endpoints.filter((endpoint) => !(endpoint in PATHS));
    if (unknown.length) throw new Error(`unknown endpoint ${unknown.join(', ')}; one of ${Object.keys(PATHS).join(', ')}`);
    if (clients > 1)
      return await concurrentRun(setup, endpoints, faulted, direct, live ? inbox : undefined, () =>
        proxy ? faultsSummary(faultsByKind, proxy.seen.length) : undefined,
      );
    const checker = await hostileChecker(setup, faulted);
    const limits = { seed, ...(seconds > 0 ? { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false } : {}) };
    console.log(
      `fuzz: seed ${seed}, up to ${runs} requests per endpoint${seconds > 0 ? ` or ${seconds} s` : ''}${
        proxy ? `, ${Math.round(faultShare * 100)} % of DynamoDB requests faulted` : ''
      }`,
    );

    let failed = false;
    const report = <T>(name: string, details: fc.RunDetails<T>, started: number, counted: EndpointName = name as EndpointName) => {
      const outcomes = outcomesOf(checker.counts[counted] ?? {});
      const took = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `${details.failed ? 'FAIL' : 'ok  '} ${name.padEnd(18)} ${String(details.numRuns).padStart(6)} runs in ${took} s   ${outcomes}`,
      );
      if (details.failed) {
        failed = true;
        const message = fc.defaultReportMessage(details) ?? '';
        console.error(message.length > 6000 ? `${message.slice(0, 6000)}... (${message.length} characters)` : message);
      }
    };

    for (const endpoint of endpoints) {
      const started = performance.now();
      const details = await fc.check(
        fc.asyncProperty(hostileRequest(endpoint, checker.setup.fixture), (request) => checker.check(request)),
        { numRuns: runs, ...limits },
      );
      report(endpoint, details, started);
    }
    if (acceptedRuns > 0) {
      // Valid registrations carrying hostile extras: each costs its scrypt hashes, so fewer.
      const started = performance.now();
      const details = await fc.check(
        fc.asyncProperty(
          acceptedRegistration(() => randomPhoneNumber()),
          async (body) => {
            const before = checker.counts.userRegister['200'] ?? 0;
            const request = registrationRequest(checker.setup.company.company_id, body);
            const unavailable = checker.counts.userRegister['503/16'] ?? 0;
            await checker.check(request, { mayRegister: true });
            const answered503 = (checker.counts.userRegister['503/16'] ?? 0) > unavailable;
            if ((checker.counts.userRegister['200'] ?? 0) <= before && !(proxy && answered503)) {
              throw new Error('a valid registration was refused');
            }
          },
        ),
        { numRuns: acceptedRuns, endOnFailure: true, ...limits },
      );
      report('valid + extras', details, started, 'userRegister');
    }
    if (proxy) console.log(faultsSummary(faultsByKind, proxy.seen.length));
    console.log(
      failed
        ? 'result: FAILED'
        : `result: ok, every answer documented, no 5xx${proxy ? ' but 503 code 16' : ''}, no refusal changed stored data`,
    );
    return failed ? 1 : 0;
  } finally {
    await proxy?.close();
    direct.destroy();
    await dynamo.stop();
    rmSync(outbox, { force: true });
  }
}

function faultsSummary(faultsByKind: Record<string, number>, requests: number): string {
  const kinds = Object.entries(faultsByKind).map(([kind, count]) => `${kind}: ${count}`);
  const faulted = Object.values(faultsByKind).reduce((sum, count) => sum + count, 0);
  return `faults: ${faulted} of ${requests} DynamoDB requests (${kinds.join('  ')})`;
}

/** Requests generated a chunk at a time, each chunk of one endpoint from a seed of its own. */
const CHUNK = 50;
/** Endpoints whose live requests each cost a registration's hashing: a quarter as many. */
const COSTLY_LIVE: EndpointName[] = ['userRegister', 'devicesRemove'];

async function concurrentRun(
  setup: HostileSetup,
  endpoints: EndpointName[],
  faulted: FaultedRun | undefined,
  direct: DynamoDBDocumentClient,
  inbox: TextInbox | undefined,
  faults: () => string | undefined,
): Promise<number> {
  const checker = concurrentAnswerChecker(setup, faulted !== undefined);
  const liveChecker = concurrentAnswerChecker(setup, faulted !== undefined);
  const arbitraries = new Map(endpoints.map((endpoint) => [endpoint, hostileRequest(endpoint, setup.fixture)]));
  const problems: string[] = [];
  const sendLive: SendChecked = async (request) => {
    const { problems: found, status, body } = await liveChecker.check(request, { mayRegister: request.endpoint === 'userRegister' });
    problems.push(...found);
    return { status, body };
  };
  const liveClients: LiveClient[] = [];
  let chunks = 0;
  let sent = 0;
  console.log(
    `fuzz: seed ${seed}, ${total} requests from ${clients} clients side by side, the endpoints in turn` +
      `${inbox ? `, every other round ${liveRequests} live requests each (a quarter for ${COSTLY_LIVE.join(', ')})` : ''}` +
      `${faulted ? `, ${Math.round(faultShare * 100)} % of DynamoDB requests faulted` : ''}`,
  );
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const liveClient = inbox && new LiveClient(setup.fixture, sendLive, inbox, setup.admin);
      if (liveClient) liveClients.push(liveClient);
      while (sent < total && problems.length < 10) {
        const chunk = chunks++;
        const endpoint = endpoints[chunk % endpoints.length]!;
        if (liveClient && Math.floor(chunk / endpoints.length) % 2 === 1 && endpoint !== 'notFound') {
          const count = COSTLY_LIVE.includes(endpoint) ? Math.ceil(liveRequests / 4) : liveRequests;
          for (let index = 0; index < count && sent < total && problems.length < 10; index++) {
            const before = liveClient.tally.sent;
            await liveClient.send(endpoint, seed + chunk * CHUNK + index);
            sent += liveClient.tally.sent - before;
          }
          continue;
        }
        const requests = fc.sample(arbitraries.get(endpoint)!, { numRuns: Math.min(CHUNK, total - sent), seed: seed + chunk });
        sent += requests.length;
        for (const request of requests) problems.push(...(await checker.check(request)).problems);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await faulted?.settled();
  problems.push(...(await checker.storedProblems(direct)));
  for (const endpoint of endpoints) console.log(`${endpoint.padEnd(26)} ${outcomesOf(checker.counts[endpoint])}`);
  if (inbox) {
    const liveTally = tallyOf(liveClients);
    console.log('\nlive requests (a live account, one part hostile):');
    for (const endpoint of endpoints) {
      if (sum(liveChecker.counts[endpoint])) console.log(`${endpoint.padEnd(26)} ${outcomesOf(liveChecker.counts[endpoint])}`);
    }
    console.log(
      `${liveTally.sent} live requests, ${liveTally.preparing} of them preparing another (an account, a code, a session, a device); ` +
        `${liveTally.accounts} accounts set up; parts made hostile: ${outcomesOf(liveTally.parts)}`,
    );
  }
  console.log('\nreached a 200, per endpoint:');
  console.log(
    table(
      ['endpoint', 'generated', '200', 'live', 'live 200', '503'],
      endpoints.map((endpoint) => {
        const [generated, liveCounts] = [checker.counts[endpoint], liveChecker.counts[endpoint]];
        return [
          endpoint,
          sum(generated),
          generated['200'] ?? 0,
          sum(liveCounts),
          liveCounts['200'] ?? 0,
          (generated['503/16'] ?? 0) + (liveCounts['503/16'] ?? 0),
        ];
      }),
    ),
  );
  const answered = endpoints.reduce((all, endpoint) => all + sum(checker.counts[endpoint]) + sum(liveChecker.counts[endpoint]), 0);
  console.log(`${answered} requests in ${seconds.toFixed(1)} s (${Math.round(answered / seconds)} a second)`);
  const summary = faults();
  if (summary) console.log(summary);
  for (const problem of problems.slice(0, 10)) console.error(`WRONG ${problem}`);
  console.log(
    problems.length
      ? `result: FAILED, ${problems.length} wrong answers or stored problems (replay with --seed ${seed})`
      : `result: ok, every answer documented, the envelope, no 5xx${faulted ? ' but 503 code 16' : ''}, every company's items whole`,
  );
  return problems.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`fuzz: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
