// npm run fuzz [-- --runs 5000 --seconds 0 --seed N --endpoint user_register]
//
// The long run of the hostile-input property that `npm test` runs a few hundred times per
// endpoint (tests/hardening/hostile-input.test.ts), with the same generators and checks: every
// generated request gets the envelope with a documented status and code, never a 5xx, and a
// refusal changes nothing stored. Runs in process against its own in-memory DynamoDB Local.
// Prints the outcomes per endpoint; on a failure, the counterexample and the seed to replay it.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { createLocalTable, freePort, startLocalDynamoDb } from './local/dynamodb-local.js';
import { localConfig } from './local/environment.js';
import { acceptedRegistration, type EndpointName, hostileRequest, PATHS, registrationRequest } from './local/hostile-input-arbitraries.js';
import { hostileChecker, setUpHostileFixture } from './local/hostile-input-property.js';
import { inProcessService, randomPhoneNumber } from './local/in-process-service.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '0' },
    seed: { type: 'string' },
    endpoint: { type: 'string', multiple: true },
    accepted: { type: 'string', default: '20' },
  },
});
const runs = Number(values.runs);
const seconds = Number(values.seconds);
const acceptedRuns = Number(values.accepted);
const seed = values.seed === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(values.seed);
if (![runs, seconds, acceptedRuns, seed].every(Number.isInteger) || runs < 1) {
  console.error(
    'usage: npm run fuzz -- [--runs N per endpoint] [--seconds N per endpoint, 0: no limit] [--seed N] [--endpoint NAME ...] [--accepted N]',
  );
  process.exit(2);
}

async function main(): Promise<number> {
  // Node 20 may run this; Lambda runs Node 22, which the AWS SDK's warning asks for.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamo = await startLocalDynamoDb({ port: await freePort() });
  const outbox = join(tmpdir(), `wallet-fuzz-outbox-${randomBytes(4).toString('hex')}.jsonl`);
  try {
    const config = localConfig({
      stage: 'fuzz',
      dynamodbEndpoint: dynamo.endpoint,
      outboxFile: outbox,
      // Refusals are logged at INFO: thousands of lines that say nothing here.
      logLevel: 'ERROR',
      // Every generated request comes from one address: its limits would stop the run.
      settings: { COMPANY_CACHE_SECONDS: '0', OTP_SENDS_PER_ADDRESS_PER_HOUR: '0', OTP_VERIFIES_PER_ADDRESS: '0' },
    });
    await createLocalTable(dynamo.endpoint, config.tableName);
    const checker = await hostileChecker(await setUpHostileFixture(inProcessService(config)));
    const endpoints = (values.endpoint ?? Object.keys(PATHS)) as EndpointName[];
    const unknown = endpoints.filter((endpoint) => !(endpoint in PATHS));
    if (unknown.length) throw new Error(`unknown endpoint ${unknown.join(', ')}; one of ${Object.keys(PATHS).join(', ')}`);
    const limits = { seed, ...(seconds > 0 ? { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false } : {}) };
    console.log(`fuzz: seed ${seed}, up to ${runs} requests per endpoint${seconds > 0 ? ` or ${seconds} s` : ''}`);

    let failed = false;
    const report = <T>(name: string, details: fc.RunDetails<T>, started: number, counted: EndpointName = name as EndpointName) => {
      const outcomes = Object.entries(checker.counts[counted] ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([outcome, count]) => `${outcome}: ${count}`)
        .join('  ');
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
            const before = checker.counts.user_register['200'] ?? 0;
            const request = registrationRequest(checker.setup.company.company_id, body);
            await checker.check(request, { mayRegister: true });
            if ((checker.counts.user_register['200'] ?? 0) <= before) throw new Error('a valid registration was refused');
          },
        ),
        { numRuns: acceptedRuns, endOnFailure: true, ...limits },
      );
      report('valid + extras', details, started, 'user_register');
    }
    console.log(failed ? 'result: FAILED' : 'result: ok, every answer documented, no 5xx, no refusal changed stored data');
    return failed ? 1 : 0;
  } finally {
    await dynamo.stop();
    rmSync(outbox, { force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`fuzz: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
