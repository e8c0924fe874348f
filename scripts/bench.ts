import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../lib/clock.js';
import { createLocalTable, freePort, startLocalDynamoDb } from '../tests/harness/dynamodb-local.js';
import { type LocalEnvironmentOptions, localConfig } from '../tests/harness/environment.js';
import { inProcessService } from '../tests/harness/in-process-service.js';
import { dropMetricLines } from '../tests/harness/metric-lines.js';
import { type AnswerTime, answerTimeEqualized, describeAnswerTime, measureAnswerTime } from './bench/answer-time.js';
import { type ColdInit, measureColdInit } from './bench/cold-init.js';
import { measurePublisher, RECORD_MIX } from './bench/events-publish.js';
import { type HashTimings, measureHashing } from './bench/hash-cost.js';
import { BUNDLE_PARTS, type PackagedFunction, packageFunctions } from './bench/package-functions.js';
import { costPerMillion, PRICES } from './bench/prices.js';
import { dollars, kilobytes, table } from './bench/report.js';
import { runScenarios } from './bench/scenarios.js';
import { measureSecretCost } from './bench/secret-cost.js';
import { round } from './bench/stats.js';
import { type AccessTokenCost, describeAccessTokens, measureAccessTokenAlgorithms } from './bench/token-cost.js';
import type { ScenarioResult } from './bench/warm-latency.js';

// npm run bench: bundle sizes, cold init against an SDK-only floor, warm latency and DynamoDB
// work per endpoint and outcome, hashing and access token signature cost, and the cost of a
// million calls. Prints the tables and writes bench/results.json. See docs/performance.md for
// how to read them. `--only tokens` measures the access tokens alone (ES256 and RS256, a few
// seconds, no DynamoDB Local) and writes nothing.

const LIMITS = { initRatio: 1.25, zipBytes: 250 * 1024, totalSeconds: 600, refreshDollarsPerMillion: 3, answerTimeMs: 10 };

const { values: options } = parseArgs({
  options: {
    calls: { type: 'string', default: '300' },
    'cold-runs': { type: 'string', default: '25' },
    'secret-runs': { type: 'string', default: '7' },
    'real-hash-calls': { type: 'string', default: '20' },
    'hash-runs': { type: 'string', default: '10' },
    'answer-time-pairs': { type: 'string', default: '30' },
    'token-calls': { type: 'string', default: '2000' },
    'publish-batches': { type: 'string', default: '50' },
    output: { type: 'string', default: 'bench/results.json' },
    only: { type: 'string' },
  },
});
if (options.only !== undefined && options.only !== 'tokens') {
  process.stderr.write('--only takes one part: tokens (the access tokens, ES256 and RS256)\n');
  process.exit(2);
}
const calls = Number(options.calls);
const coldRuns = Number(options['cold-runs']);
const secretRuns = Number(options['secret-runs']);
const root = resolve(import.meta.dirname, '..');
const started = performance.now();
const progress = (line: string) => process.stderr.write(`[bench ${Math.round((performance.now() - started) / 1000)}s] ${line}\n`);

/** Settings for the in-process calls (lib/config.ts), beside the local defaults. */
const BENCH_SETTINGS = {
  // Generous: DynamoDB Local on a busy machine is slower than DynamoDB, and a timed-out attempt
  // would be retried and counted as an extra round trip.
  DYNAMODB_TIMEOUT_MS: '3000',
  DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS: '3000',
  // Long enough that no measured call pays the company read; a cold cache adds one GetItem.
  COMPANY_CACHE_SECONDS: '3600',
  // Thousands of sends from one company and one address within the hour: the ceilings would
  // refuse them. They stay on (counted on every call, so the round trips are the real ones).
  OTP_SENDS_PER_COMPANY_PER_HOUR: String(1e9),
  OTP_SENDS_PER_ADDRESS_PER_HOUR: String(1e9),
  OTP_VERIFIES_PER_ADDRESS: String(1e9),
  OTP_SENDS_PER_PREFIX_PER_HOUR: String(1e9),
  // The locked-PIN row needs each customer's PIN locked first: two wrong PINs set that up where
  // five took 2.5 times the calls. No measured row depends on the number (the wrong PIN measured
  // is never the one that locks).
  PIN_MAX_FAILURES: '2',
  // The back office's rows: each admin searches or views every customer once; a recovery is due at once.
  ADMIN_LOOKUPS_PER_HOUR: '1000',
  PHONE_CHANGE_HOLD_HOURS: '0',
};

async function warmPhase(): Promise<{
  hashing: HashTimings;
  accessTokens: AccessTokenCost[];
  scenarios: ScenarioResult[];
  answerTime: AnswerTime;
}> {
  progress('starting DynamoDB Local');
  const dynamo = await startLocalDynamoDb({ port: await freePort() });
  const scratch = mkdtempSync(join(tmpdir(), 'wallet-bench-'));
  const stop = () => void dynamo.stop().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  try {
    const environment: LocalEnvironmentOptions = {
      stage: 'bench',
      dynamodbEndpoint: dynamo.endpoint,
      outboxFile: join(scratch, 'sms-outbox.jsonl'),
      // Refusals log at INFO; WARN keeps thousands of them off the report.
      logLevel: 'WARN',
      settings: BENCH_SETTINGS,
    };
    const config = localConfig(environment);
    await createLocalTable(dynamo.endpoint, config.tableName);
    const service = inProcessService(config);
    progress('hashing: OWASP scrypt settings, PIN settings and the configured ones');
    const hashing = await measureHashing(service.app.keys, Number(options['hash-runs']));
    progress(`access tokens: ${options['token-calls']} signings and checks of each kind, ES256 and RS256`);
    const accessTokens = await measureAccessTokenAlgorithms(service.app, Number(options['token-calls']));
    const restoreStdout = dropMetricLines();
    try {
      const scenarios = await runScenarios(service, calls, Number(options['real-hash-calls']), progress);
      const pairs = Number(options['answer-time-pairs']);
      progress(`login_phone answer time: ${pairs} registered and ${pairs} unregistered phones, with the wait and without`);
      return { hashing, accessTokens, scenarios, answerTime: await measureAnswerTime(environment, pairs) };
    } finally {
      restoreStdout();
    }
  } finally {
    process.off('SIGINT', stop);
    await dynamo.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Lambda milliseconds for a call: its waiting as measured, its CPU time stretched to the function's share of a vCPU. */
function lambdaMs(result: ScenarioResult, memoryMb: number, hashing: HashTimings): number {
  const vcpu = Math.min(1, memoryMb / PRICES.mbPerVcpu);
  // Calls measured at the bench-only scrypt cost are billed with the real hashing's CPU time.
  const cpu = result.meanCpuMs + (result.hashing === 'injected' ? hashing.registrationCpuMs : 0);
  return Math.ceil(result.meanWaitMs + cpu / vcpu);
}

const CLIENT_NAMES: Record<string, string> = {
  'client-dynamodb': 'DynamoDB',
  'lib-dynamodb': 'DocumentClient',
  'client-sns': 'SNS',
  'client-ssm': 'SSM',
  'client-sqs': 'SQS',
  'client-eventbridge': 'EventBridge',
};

const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([value, count]) => (Object.keys(counts).length === 1 ? value : `${value}x${count}`))
    .join(',');

async function main() {
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAverageAtStart: loadavg().map((value) => round(value, 2)),
  };
  progress(`packaging with serverless (stage bench)`);
  const functions: PackagedFunction[] = await packageFunctions(root);
  progress(`cold init: ${functions.length} functions and their floors, ${coldRuns} fresh processes each`);
  const cold: ColdInit[] = await measureColdInit(root, functions, coldRuns);
  progress(`server secret from SSM: ${coldRuns} pairs of imports, ${secretRuns} first reads of each source`);
  const secretCost = await measureSecretCost(root, { importRuns: coldRuns, readRuns: secretRuns });
  const { hashing, accessTokens, scenarios, answerTime } = await warmPhase();
  const publishBatches = Number(options['publish-batches']);
  progress(
    `events publisher: ${publishBatches} batches of ${Object.values(RECORD_MIX).reduce((sum, count) => sum + count, 0)} stream records`,
  );
  const restoreStdout = dropMetricLines();
  const publisher = await measurePublisher({
    batches: publishBatches,
    memoryMb: functions.find((fn) => fn.name === 'eventsPublish')?.memoryMb ?? 256,
  }).finally(restoreStdout);

  const warm = scenarios.map((result) => {
    const memoryMb = functions.find((fn) => fn.name === result.endpoint)?.memoryMb ?? 1024;
    const billedMs = lambdaMs(result, memoryMb, hashing);
    const cost = costPerMillion({
      memoryMb,
      billedMs,
      readUnits: result.readUnits,
      writeUnits: result.writeUnits + result.estimatedFailedWriteUnits,
      sms: result.smsPerCall,
    });
    return {
      ...result,
      memoryMb,
      lambdaBilledMs: billedMs,
      costPerMillionCalls: Object.fromEntries(Object.entries(cost).map(([key, value]) => [key, dollars(value)])),
    };
  });

  // Registration is CPU-bound (scrypt): what its memory size does to duration and cost.
  const registration = warm.find((entry) => entry.endpoint === 'userRegister' && entry.outcome === 'new user');
  const registrationMemory = !registration
    ? []
    : [1024, PRICES.mbPerVcpu].map((memoryMb) => {
        const billedMs = lambdaMs(registration, memoryMb, hashing);
        const cost = costPerMillion({ memoryMb, billedMs, readUnits: registration.readUnits, writeUnits: registration.writeUnits, sms: 0 });
        return { memoryMb, lambdaMs: billedMs, lambdaCostPerMillion: dollars(cost.lambda) };
      });

  // A returning user's login: by OTP a send and a right code; by PIN one signed call.
  const costOf = (endpoint: string, outcome: string) =>
    Number(warm.find((entry) => entry.endpoint === endpoint && entry.outcome === outcome)?.costPerMillionCalls.total ?? Number.NaN);
  const otpLogin = costOf('loginPhone', 'first send in window') + costOf('verifyOtp', 'right login code');
  const pinLogin = costOf('loginPin', 'right PIN');
  // A refresh: a token spent for a new pair (the check); with the Idempotency-Key clients are asked to send, beside it.
  const refresh = costOf('tokenRefresh', 'new pair');
  const keyedRefresh = costOf('tokenRefresh', 'new pair, with Idempotency-Key');

  const totalSeconds = round((performance.now() - started) / 1000, 1);
  const checks = {
    initRatioAtMost: LIMITS.initRatio,
    initRatios: cold.every((entry) => entry.ratio <= LIMITS.initRatio),
    zipsAtMostBytes: LIMITS.zipBytes,
    zips: functions.every((fn) => fn.zipBytes <= LIMITS.zipBytes),
    roundTripsEqualMinimum: warm.every((entry) => entry.matchesMinimum),
    refreshDollarsPerMillionAtMost: LIMITS.refreshDollarsPerMillion,
    refreshCost: refresh <= LIMITS.refreshDollarsPerMillion,
    totalSeconds,
    underTenMinutes: totalSeconds < LIMITS.totalSeconds,
    answerTimeWithinMs: LIMITS.answerTimeMs,
    answerTimeEqual: answerTimeEqualized(answerTime, LIMITS.answerTimeMs),
  };

  const out = (text = '') => process.stdout.write(`${text}\n`);
  out(`\nwallet-auth bench: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}`);
  out(`load average at start ${machine.loadAverageAtStart.join(' ')}; timings are noisy when other work shares the machine\n`);
  out('Bundles (serverless package) and cold init (median import time in a fresh Node process)');
  out(
    table(
      [
        'function',
        'route',
        'MB',
        'zip KB',
        'unzipped KB',
        'init ms',
        'floor ms',
        'ratio',
        'ratio IQR',
        'CPU ms',
        'floor CPU',
        'CPU ratio',
        'CPU IQR',
        'floor = SDK clients',
        'check',
      ],
      functions.map((fn) => {
        const entry = cold.find((candidate) => candidate.name === fn.name)!;
        const ok = entry.ratio <= LIMITS.initRatio && fn.zipBytes <= LIMITS.zipBytes;
        return [
          fn.name,
          fn.route,
          fn.memoryMb,
          kilobytes(fn.zipBytes),
          kilobytes(fn.unzippedBytes),
          entry.initMs,
          entry.floorMs,
          entry.ratio,
          entry.ratioIqr.join('-'),
          entry.initCpuMs,
          entry.floorCpuMs,
          entry.cpuRatio,
          entry.cpuRatioIqr.join('-'),
          entry.clients.map((name) => CLIENT_NAMES[name] ?? name).join('+') || '(none)',
          ok ? 'OK' : 'OVER',
        ];
      }),
    ),
  );
  out(
    `(${coldRuns} runs, each a fresh process importing the bundle while another imports its floor, the functions in random order;` +
      `\nratio: the median of the runs' ratios, the check is on it; IQR: the middle half of them, how far one run's ratio may move;` +
      `\nlimits: ratio <= ${LIMITS.initRatio}, zip <= ${LIMITS.zipBytes / 1024} KB)\n`,
  );

  out('What each bundle holds (KB of minified code, from its esbuild metafile; SDK: the AWS SDK and its dependencies)');
  out(
    table(
      ['function', ...BUNDLE_PARTS],
      functions.map((fn) => [fn.name, ...BUNDLE_PARTS.map((part) => kilobytes(fn.contents[part]))]),
    ),
  );
  out();

  out(
    `Server secret from SSM Parameter Store, once per container: importing the SSM client adds ${secretCost.importSsmAddsMs} ms ` +
      `(${secretCost.importSsmAddsCpuMs} ms CPU; DynamoDB clients ${secretCost.importWithoutSsmMs} ms, with SSM ${secretCost.importWithSsmMs} ms); the first read takes ` +
      `${secretCost.firstReadSsmMs} ms (${secretCost.firstReadSsmCpuMs} ms CPU) against a loopback SSM, plus AWS's network time, ` +
      `where the local file takes ${secretCost.firstReadFileMs} ms; every later use ${secretCost.laterReadMs} ms (in memory)\n`,
  );

  out(`Warm calls in process against DynamoDB Local (${calls} calls per row unless shown; company cache warm)`);
  out(
    table(
      [
        'endpoint',
        'outcome',
        'calls',
        'p50 ms',
        'p99 ms',
        'DynamoDB req (seq)',
        'minimum (seq)',
        'check',
        'RRU',
        'WRU',
        'est. WRU',
        'Lambda ms',
        '$ / 1M calls',
      ],
      warm.map((entry) => [
        entry.endpoint,
        entry.outcome + (entry.hashing === 'injected' ? ' [bench scrypt]' : entry.hashing === 'real' ? ' [real scrypt]' : ''),
        entry.calls,
        entry.p50Ms,
        entry.p99Ms,
        `${describeCounts(entry.requests)} (${describeCounts(entry.sequential)})`,
        `${entry.minimum.requests} (${entry.minimum.sequential})`,
        entry.matchesMinimum ? 'OK' : 'MISMATCH',
        entry.readUnits,
        entry.writeUnits,
        entry.estimatedFailedWriteUnits,
        entry.lambdaBilledMs,
        entry.costPerMillionCalls.total!,
      ]),
    ),
  );
  out(
    `[bench scrypt]: registrations ran at a bench-only scrypt cost (N=2^10, r=8, p=1) injected into this process, so` +
      `\nhundreds fit in the time budget; their latency excludes real hashing, measured below and added to their Lambda ms and cost.` +
      `\nRRU/WRU: capacity consumed per call, as DynamoDB reports it (transactions: 2 WRU per item per KB, counted from the request, as\nDynamoDB Local under-reports them). est. WRU: refused conditional writes, which DynamoDB does not report; counted as if written.` +
      `\nLambda ms: off-CPU time as measured plus CPU time at the function's vCPU share (memory / ${PRICES.mbPerVcpu} MB).` +
      `\nRows with fewer than 100 calls show their slowest call as p99.\n`,
  );

  out(describeAnswerTime(answerTime));

  const setting = ({ N, r, p }: { N: number; r: number; p: number }) => `N=2^${Math.log2(N)}, r=${r}, p=${p}`;
  out(`Hashing: passwords (scrypt, OWASP settings; ${hashing.runs} runs each for the configured one)`);
  out(
    table(
      ['N', 'r', 'p', 'memory MiB', 'median ms'],
      hashing.candidates.map((c) => [`2^${Math.log2(c.N)}`, c.r, c.p, c.memoryMiB, c.medianMs]),
    ),
  );
  out('PINs (scrypt of the peppered PIN): the cost to a registration, and to a thief holding table and pepper, per user on one core');
  out(
    table(
      ['N', 'r', 'p', 'memory MiB', 'median ms', 's per 4-digit PIN', 'h per 6-digit PIN'],
      hashing.pinCandidates.map((c) => [
        `2^${Math.log2(c.N)}`,
        c.r,
        c.p,
        c.memoryMiB,
        c.medianMs,
        c.secondsPer4DigitPin,
        c.hoursPer6DigitPin,
      ]),
    ),
  );
  out(
    `configured: password ${setting(hashing.password)} ${hashing.passwordMs} ms, PIN ${setting(hashing.pin)} ${hashing.pinMs} ms; ` +
      `registration's three side by side ${hashing.registrationMs} ms wall, ${hashing.registrationCpuMs} ms CPU (hashing.registrationCpuMs)`,
  );
  out(
    `registration by memory size (model): ` +
      registrationMemory
        .map((option) => `${option.memoryMb} MB ${option.lambdaMs} ms, Lambda $${option.lambdaCostPerMillion} per 1M`)
        .join('; ') +
      '\n',
  );

  out(describeAccessTokens(accessTokens));

  out(
    `Cost of one million calls, USD, ${PRICES.region} list prices as of ${PRICES.asOf} (see scripts/bench/prices.ts; check before quoting)`,
  );
  out(
    table(
      ['endpoint', 'outcome', 'MB', 'Lambda', 'DynamoDB', 'SMS', 'HTTP API', 'total'],
      warm.map((entry) => {
        const cost = entry.costPerMillionCalls;
        return [
          entry.endpoint,
          entry.outcome + (entry.hashing === 'real' ? ' [real scrypt]' : ''),
          entry.memoryMb,
          cost.lambda!,
          cost.dynamodb!,
          cost.sms!,
          cost.apiGateway!,
          cost.total!,
        ];
      }),
    ),
  );
  out(
    `SMS: ${PRICES.smsUs} USD per message to a US number; Lambda arm64 ${PRICES.lambdaArmPerGbSecond} per GB-s + 0.20 per million requests.\n`,
  );
  out(
    `Events (contract 3.13): the requests that emit one pay nothing for it (0 DynamoDB requests, 0 WRU: the table's stream carries` +
      `\nthe committed write); eventsPublish pays. A batch of ${publisher.records} stream records (${publisher.events} events, ` +
      `${publisher.putEventsCallsPerBatch} PutEvents calls) on a loopback EventBridge: ${publisher.batchMs} ms median ` +
      `(${publisher.batchCpuMs} ms CPU, ${publisher.batchWaitMs} ms waiting; ${publisher.batches} batches), ` +
      `${publisher.lambdaBilledMs} Lambda ms at ${publisher.memoryMb} MB.`,
  );
  out(
    table(
      ['endpoint', 'outcome', 'events emitted', 'added DynamoDB req', 'added WRU'],
      warm.filter((entry) => entry.minimum.events).map((entry) => [entry.endpoint, entry.outcome, entry.minimum.events!, 0, 0]),
    ),
  );
  out(
    table(
      ['per million events', 'Lambda', 'EventBridge', 'Streams', 'total'],
      [
        [`batches of ${publisher.records} records`, ...Object.values(publisher.perMillionEvents)],
        ['batches of 1 record (quiet table)', ...Object.values(publisher.perMillionEventsOneRecordBatches)],
      ],
    ),
  );
  out(
    `EventBridge $${PRICES.eventBridgePerEntryChunk * 1e6} per million entries (64 KB chunks; an event is under 1 KB); the stream's reads by a Lambda trigger are free.\n`,
  );
  // The warm rows sign with the bench stage's ES256 key: RS256 adds its signing's difference.
  const [es256, rs256] = accessTokens;
  const rs256Adds = (rs256?.signingDollarsPerMillionLogins ?? Number.NaN) - (es256?.signingDollarsPerMillionLogins ?? Number.NaN);
  out(
    `A login per million: by OTP (login_phone + verify_otp) $${dollars(otpLogin)}; by PIN (login_pin) $${dollars(pinLogin)} ` +
      `(signed ES256; an RS256 stage's signing adds $${rs256Adds.toFixed(3)}).`,
  );
  out(`A refresh per million: $${dollars(refresh)}; with an Idempotency-Key $${dollars(keyedRefresh)}.\n`);

  out(
    `Checks: init ratio <= ${LIMITS.initRatio}: ${checks.initRatios ? 'OK' : 'FAIL'}; zips <= ${LIMITS.zipBytes / 1024} KB: ${checks.zips ? 'OK' : 'FAIL'}; ` +
      `round trips = documented minimum: ${checks.roundTripsEqualMinimum ? 'OK' : 'MISMATCH'}; ` +
      `a refresh <= $${LIMITS.refreshDollarsPerMillion} per 1M: ${checks.refreshCost ? 'OK' : 'FAIL'}; ` +
      `login_phone answer times within ${LIMITS.answerTimeMs} ms: ${checks.answerTimeEqual ? 'OK' : 'FAIL'}; ` +
      `total ${totalSeconds} s (< 600: ${checks.underTenMinutes ? 'OK' : 'FAIL'})`,
  );

  const results = {
    generatedAt: new Date().toISOString(),
    machine,
    settings: {
      callsPerScenario: calls,
      coldRuns,
      secretRuns,
      answerTimePairs: Number(options['answer-time-pairs']),
      accessTokenCalls: Number(options['token-calls']),
      benchOnlyScrypt: 'N=2^10 r=8 p=1 (injected in the bench process only)',
    },
    prices: PRICES,
    bundles: functions.map(({ entries: _entries, ...fn }) => ({ ...fn, ...cold.find((entry) => entry.name === fn.name) })),
    secretCost,
    hashing,
    accessTokens,
    registrationMemory,
    warm,
    loginCostPerMillion: { otp: dollars(otpLogin), pin: dollars(pinLogin) },
    refreshCostPerMillion: { refresh: dollars(refresh), withIdempotencyKey: dollars(keyedRefresh) },
    answerTime,
    eventsPublisher: publisher,
    checks,
  };
  const output = resolve(root, options.output!);
  mkdirSync(resolve(output, '..'), { recursive: true });
  writeFileSync(output, `${JSON.stringify(results, null, 2)}\n`);
  out(`written: ${options.output}`);
  if (
    !checks.initRatios ||
    !checks.zips ||
    !checks.roundTripsEqualMinimum ||
    !checks.refreshCost ||
    !checks.underTenMinutes ||
    !checks.answerTimeEqual
  ) {
    process.exitCode = 1;
  }
}

/** --only tokens: the access tokens' tables alone, on the bench stage's settings (no table is called, nothing is written). */
async function tokensOnly() {
  const config = localConfig({
    stage: 'bench',
    dynamodbEndpoint: 'http://127.0.0.1:9',
    outboxFile: join(tmpdir(), 'wallet-bench-outbox-unused.jsonl'),
    logLevel: 'WARN',
    settings: BENCH_SETTINGS,
  });
  progress(`access tokens: ${options['token-calls']} signings and checks of each kind, ES256 and RS256`);
  const accessTokens = await measureAccessTokenAlgorithms({ config, clock: systemClock }, Number(options['token-calls']));
  process.stdout.write(`\n${describeAccessTokens(accessTokens)}\n(--only tokens: ${options.output} not written)\n`);
}

await (options.only === 'tokens' ? tokensOnly() : main());
