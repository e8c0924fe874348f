import { type AnswerTime, describeAnswerTime } from './answer-time.js';
import type { ColdInit } from './cold-init.js';
import type { PublisherCost } from './events-publish.js';
import type { HashTimings } from './hash-cost.js';
import { BUNDLE_PARTS, type PackagedFunction } from './package-functions.js';
import type { PRICES } from './prices.js';
import { kilobytes, table } from './report.js';
import type { SecretCost } from './secret-cost.js';
import { type AccessTokenCost, describeAccessTokens } from './token-cost.js';
import type { ScenarioResult } from './warm-latency.js';

// What npm run bench prints, from what it writes to bench/results.json alone: the bench prints it,
// and writes it into docs/performance.md (and the README's costs) from that file
// (scripts/bench/bench-docs.ts), so the docs show a run's own figures.

/** What bench/results.json holds. */
export interface BenchResults {
  generatedAt: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; os: string; loadAverageAtStart: number[] };
  settings: {
    callsPerScenario: number;
    coldRuns: number;
    secretRuns: number;
    answerTimePairs: number;
    accessTokenCalls: number;
    benchOnlyScrypt: string;
  };
  prices: typeof PRICES;
  bundles: (Omit<PackagedFunction, 'entries'> & ColdInit)[];
  secretCost: SecretCost;
  hashing: HashTimings;
  accessTokens: AccessTokenCost[];
  registrationMemory: { memoryMb: number; lambdaMs: number; lambdaCostPerMillion: number }[];
  warm: (ScenarioResult & { memoryMb: number; lambdaBilledMs: number; costPerMillionCalls: Record<string, number> })[];
  loginCostPerMillion: { otp: number; pin: number; passkey: number };
  refreshCostPerMillion: { refresh: number; withIdempotencyKey: number; bound: number };
  answerTime: AnswerTime;
  eventsPublisher: PublisherCost;
  checks: {
    initRatioAtMost: number;
    initRatios: boolean;
    zipsAtMostBytes: number;
    zips: boolean;
    roundTripsEqualMinimum: boolean;
    refreshDollarsPerMillionAtMost: number;
    refreshCost: boolean;
    totalSeconds: number;
    totalSecondsUnder: number;
    underTenMinutes: boolean;
    answerTimeWithinMs: number;
    answerTimeEqual: boolean;
  };
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

/** Whether every check of the run passed. */
export const allChecksPassed = ({ checks }: BenchResults) =>
  checks.initRatios &&
  checks.zips &&
  checks.roundTripsEqualMinimum &&
  checks.refreshCost &&
  checks.underTenMinutes &&
  checks.answerTimeEqual;

/** The bench's report: every table it prints, from its results. */
export function benchReport(results: BenchResults): string {
  const lines: string[] = [];
  const out = (text = '') => lines.push(text);
  out(
    `\nwallet-auth bench: ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memoryGiB} GiB, Node ${results.machine.node}, ${results.machine.os}`,
  );
  out(`load average at start ${results.machine.loadAverageAtStart.join(' ')}; timings are noisy when other work shares the machine\n`);
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
      results.bundles.map((fn) => {
        const entry = fn;
        const ok = entry.ratio <= results.checks.initRatioAtMost && fn.zipBytes <= results.checks.zipsAtMostBytes;
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
    `(${results.settings.coldRuns} runs, each a fresh process importing the bundle while another imports its floor, the functions in random order;` +
      `\nratio: the median of the runs' ratios, the check is on it; IQR: the middle half of them, how far one run's ratio may move;` +
      `\nlimits: ratio <= ${results.checks.initRatioAtMost}, zip <= ${results.checks.zipsAtMostBytes / 1024} KB, or the function's own budget (serverless/zip-budgets.cjs))\n`,
  );

  out('What each bundle holds (KB of minified code, from its esbuild metafile; SDK: the AWS SDK and its dependencies)');
  out(
    table(
      ['function', ...BUNDLE_PARTS],
      results.bundles.map((fn) => [fn.name, ...BUNDLE_PARTS.map((part) => kilobytes(fn.contents[part]))]),
    ),
  );
  out();

  out(
    `Server secret from SSM Parameter Store, once per container: importing the SSM client adds ${results.secretCost.importSsmAddsMs} ms ` +
      `(${results.secretCost.importSsmAddsCpuMs} ms CPU; DynamoDB clients ${results.secretCost.importWithoutSsmMs} ms, with SSM ${results.secretCost.importWithSsmMs} ms); the first read takes ` +
      `${results.secretCost.firstReadSsmMs} ms (${results.secretCost.firstReadSsmCpuMs} ms CPU) against a loopback SSM, plus AWS's network time, ` +
      `where the local file takes ${results.secretCost.firstReadFileMs} ms; every later use ${results.secretCost.laterReadMs} ms (in memory)\n`,
  );

  out(`Warm calls in process against DynamoDB Local (${results.settings.callsPerScenario} calls per row unless shown; company cache warm)`);
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
      results.warm.map((entry) => [
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
      `\nLambda ms: off-CPU time as measured plus CPU time at the function's vCPU share (memory / ${results.prices.mbPerVcpu} MB).` +
      `\nRows with fewer than 100 calls show their slowest call as p99.\n`,
  );

  out(describeAnswerTime(results.answerTime));

  const setting = ({ N, r, p }: { N: number; r: number; p: number }) => `N=2^${Math.log2(N)}, r=${r}, p=${p}`;
  out(`Hashing: passwords (scrypt, OWASP settings; ${results.hashing.runs} runs each for the configured one)`);
  out(
    table(
      ['N', 'r', 'p', 'memory MiB', 'median ms'],
      results.hashing.candidates.map((c) => [`2^${Math.log2(c.N)}`, c.r, c.p, c.memoryMiB, c.medianMs]),
    ),
  );
  out('PINs (scrypt of the peppered PIN): the cost to a registration, and to a thief holding table and pepper, per user on one core');
  out(
    table(
      ['N', 'r', 'p', 'memory MiB', 'median ms', 's per 4-digit PIN', 'h per 6-digit PIN'],
      results.hashing.pinCandidates.map((c) => [
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
    `configured: password ${setting(results.hashing.password)} ${results.hashing.passwordMs} ms, PIN ${setting(results.hashing.pin)} ${results.hashing.pinMs} ms; ` +
      `registration's three side by side ${results.hashing.registrationMs} ms wall, ${results.hashing.registrationCpuMs} ms CPU (results.hashing.registrationCpuMs)`,
  );
  out(
    `registration by memory size (model): ` +
      results.registrationMemory
        .map((option) => `${option.memoryMb} MB ${option.lambdaMs} ms, Lambda $${option.lambdaCostPerMillion} per 1M`)
        .join('; ') +
      '\n',
  );

  out(describeAccessTokens(results.accessTokens));

  out(
    `Cost of one million calls, USD, ${results.prices.region} list prices as of ${results.prices.asOf} (see scripts/bench/prices.ts; check before quoting)`,
  );
  out(
    table(
      ['endpoint', 'outcome', 'MB', 'Lambda', 'DynamoDB', 'SMS', 'HTTP API', 'total'],
      results.warm.map((entry) => {
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
    `SMS: ${results.prices.smsUs} USD per message to a US number; Lambda arm64 ${results.prices.lambdaArmPerGbSecond} per GB-s + 0.20 per million requests.\n`,
  );
  out(
    `Events (contract 3.13): the requests that emit one pay nothing for it (0 DynamoDB requests, 0 WRU: the table's stream carries` +
      `\nthe committed write); eventsPublish pays. A batch of ${results.eventsPublisher.records} stream records (${results.eventsPublisher.events} events, ` +
      `${results.eventsPublisher.putEventsCallsPerBatch} PutEvents calls) on a loopback EventBridge: ${results.eventsPublisher.batchMs} ms median ` +
      `(${results.eventsPublisher.batchCpuMs} ms CPU, ${results.eventsPublisher.batchWaitMs} ms waiting; ${results.eventsPublisher.batches} batches), ` +
      `${results.eventsPublisher.lambdaBilledMs} Lambda ms at ${results.eventsPublisher.memoryMb} MB.`,
  );
  out(
    table(
      ['endpoint', 'outcome', 'events emitted', 'added DynamoDB req', 'added WRU'],
      results.warm.filter((entry) => entry.minimum.events).map((entry) => [entry.endpoint, entry.outcome, entry.minimum.events!, 0, 0]),
    ),
  );
  out(
    table(
      ['per million events', 'Lambda', 'EventBridge', 'Streams', 'total'],
      [
        [`batches of ${results.eventsPublisher.records} records`, ...Object.values(results.eventsPublisher.perMillionEvents)],
        ['batches of 1 record (quiet table)', ...Object.values(results.eventsPublisher.perMillionEventsOneRecordBatches)],
      ],
    ),
  );
  out(
    `EventBridge $${results.prices.eventBridgePerEntryChunk * 1e6} per million entries (64 KB chunks; an event is under 1 KB); the stream's reads by a Lambda trigger are free.\n`,
  );
  // The warm rows sign with the bench stage's ES256 key: RS256 adds its signing's difference.
  const [es256, rs256] = results.accessTokens;
  const rs256Adds = (rs256?.signingDollarsPerMillionLogins ?? Number.NaN) - (es256?.signingDollarsPerMillionLogins ?? Number.NaN);
  out(
    `A login per million: by OTP (login_phone + verify_otp) $${results.loginCostPerMillion.otp}; by PIN (login_pin) $${results.loginCostPerMillion.pin}; ` +
      `by passkey (passkeys/login/options + passkeys/login) $${results.loginCostPerMillion.passkey} ` +
      `(signed ES256; an RS256 stage's signing adds $${rs256Adds.toFixed(3)}).`,
  );
  out(
    `A refresh per million: $${results.refreshCostPerMillion.refresh}; with an Idempotency-Key $${results.refreshCostPerMillion.withIdempotencyKey}; ` +
      `bound by DPoP (the proof checked, its jti spent) $${results.refreshCostPerMillion.bound}.\n`,
  );

  out(
    `Checks: init ratio <= ${results.checks.initRatioAtMost}: ${results.checks.initRatios ? 'OK' : 'FAIL'}; zips within budget: ${results.checks.zips ? 'OK' : 'FAIL'}; ` +
      `round trips = documented minimum: ${results.checks.roundTripsEqualMinimum ? 'OK' : 'MISMATCH'}; ` +
      `a refresh <= $${results.checks.refreshDollarsPerMillionAtMost} per 1M: ${results.checks.refreshCost ? 'OK' : 'FAIL'}; ` +
      `login_phone answer times within ${results.checks.answerTimeWithinMs} ms: ${results.checks.answerTimeEqual ? 'OK' : 'FAIL'}; ` +
      `total ${results.checks.totalSeconds} s (< ${results.checks.totalSecondsUnder}: ${results.checks.underTenMinutes ? 'OK' : 'FAIL'})`,
  );

  return `${lines.join('\n')}\n`;
}
