import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../lib/clock.js';
import { createLocalTable, freePort, startLocalDynamoDb } from '../tests/harness/dynamodb-local.js';
import { type LocalEnvironmentOptions, localConfig } from '../tests/harness/environment.js';
import { inProcessService } from '../tests/harness/in-process-service.js';
import { dropMetricLines } from '../tests/harness/metric-lines.js';
import { type AnswerTime, answerTimeEqualized, measureAnswerTime } from './bench/answer-time.js';
import { DEFAULT_OUTPUT, readResults, writeBenchDocs } from './bench/bench-docs.js';
import { type ColdInit, measureColdInit } from './bench/cold-init.js';
import { measurePublisher, RECORD_MIX } from './bench/events-publish.js';
import { type HashTimings, measureHashing } from './bench/hash-cost.js';
import { type PackagedFunction, packageFunctions } from './bench/package-functions.js';
import { costPerMillion, PRICES } from './bench/prices.js';
import { dollars } from './bench/report.js';
import { allChecksPassed, type BenchResults, benchReport } from './bench/report-text.js';
import { runScenarios } from './bench/scenarios.js';
import { measureSecretCost } from './bench/secret-cost.js';
import { round } from './bench/stats.js';
import { type AccessTokenCost, describeAccessTokens, measureAccessTokenAlgorithms } from './bench/token-cost.js';
import type { ScenarioResult } from './bench/warm-latency.js';

const { ZIP_BUDGET_BYTES } = createRequire(import.meta.url)('../serverless/zip-budgets.cjs') as { ZIP_BUDGET_BYTES: number };

// npm run bench: bundle sizes, cold init against an SDK-only floor, warm latency and DynamoDB
// work per endpoint and outcome, hashing and access token signature cost, and the cost of a
// million calls. Prints the tables and writes bench/results.json. See docs/performance.md for
// how to read them. `--only tokens` measures the access tokens alone (ES256 and RS256, a few
// seconds, no DynamoDB Local) and writes nothing.

// zipBytes: every function's budget (serverless/zip-budgets.cjs).
const LIMITS = { initRatio: 1.25, zipBytes: ZIP_BUDGET_BYTES, totalSeconds: 600, refreshDollarsPerMillion: 3, answerTimeMs: 10 };

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
    docs: { type: 'boolean', default: false },
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
  // The back office's rows: each admin searches or views every customer once; the operator's admins
  // approve at once (a deployed stage waits ADMIN_APPROVER_MIN_HOURS after an admin is made).
  ADMIN_LOOKUPS_PER_HOUR: '1000',
  ADMIN_APPROVER_MIN_HOURS: '0',
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
  // By passkey: its options (no phone typed) and the assertion; bound by DPoP, the proof checked and its jti spent.
  const passkeyLogin = costOf('passkeysLoginOptions', 'no phone typed (discoverable)') + costOf('passkeysLogin', 'right assertion');
  // A refresh: a token spent for a new pair (the check); with the Idempotency-Key clients are asked to send, beside it.
  const refresh = costOf('tokenRefresh', 'new pair');
  const keyedRefresh = costOf('tokenRefresh', 'new pair, with Idempotency-Key');
  const boundRefresh = costOf('tokenRefresh', 'new pair, bound (DPoP)');

  const totalSeconds = round((performance.now() - started) / 1000, 1);
  const checks = {
    initRatioAtMost: LIMITS.initRatio,
    initRatios: cold.every((entry) => entry.ratio <= LIMITS.initRatio),
    zipsAtMostBytes: LIMITS.zipBytes,
    zips: functions.every((fn) => fn.zipBytes <= LIMITS.zipBytes),
    roundTripsEqualMinimum: warm.every((entry) => entry.matchesMinimum),
    refreshDollarsPerMillionAtMost: LIMITS.refreshDollarsPerMillion,
    refreshCost: Math.max(refresh, boundRefresh) <= LIMITS.refreshDollarsPerMillion,
    totalSeconds,
    totalSecondsUnder: LIMITS.totalSeconds,
    underTenMinutes: totalSeconds < LIMITS.totalSeconds,
    answerTimeWithinMs: LIMITS.answerTimeMs,
    answerTimeEqual: answerTimeEqualized(answerTime, LIMITS.answerTimeMs),
  };

  const results: BenchResults = {
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
    bundles: functions.map(({ entries: _entries, ...fn }) => ({
      ...fn,
      ...cold.find((entry) => entry.name === fn.name)!,
    })),
    secretCost,
    hashing,
    accessTokens,
    registrationMemory,
    warm,
    loginCostPerMillion: { otp: dollars(otpLogin), pin: dollars(pinLogin), passkey: dollars(passkeyLogin) },
    refreshCostPerMillion: { refresh: dollars(refresh), withIdempotencyKey: dollars(keyedRefresh), bound: dollars(boundRefresh) },
    answerTime,
    eventsPublisher: publisher,
    checks,
  };
  process.stdout.write(`\n${benchReport(results)}`);
  const output = resolve(root, options.output!);
  mkdirSync(resolve(output, '..'), { recursive: true });
  writeFileSync(output, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`written: ${options.output}\n`);
  if (options.output === DEFAULT_OUTPUT) process.stdout.write(`written from it: ${writeBenchDocs(root, results).join(', ')}\n`);
  if (!allChecksPassed(results)) process.exitCode = 1;
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

/** --docs: the README's costs and docs/performance.md's figures written again from bench/results.json, nothing measured. */
function docsOnly() {
  process.stdout.write(`written from ${DEFAULT_OUTPUT}: ${writeBenchDocs(root, readResults(root)).join(', ')}\n`);
}

await (options.docs ? docsOnly() : options.only === 'tokens' ? tokensOnly() : main());
