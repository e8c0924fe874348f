import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { allChecksPassed, type BenchResults, benchReport } from './report-text.js';

// The figures of the README's costs and of docs/performance.md's latest run, written from
// bench/results.json by npm run bench (and by `npm run bench -- --docs` alone): each between its
// two markers, and tests/docs/bench-figures.test.ts fails when one differs from the file.

export const DEFAULT_OUTPUT = 'bench/results.json';

const START = '<!-- npm run bench writes from here, from bench/results.json -->';
const END = '<!-- npm run bench writes up to here -->';

const usd = (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const day = (results: BenchResults) => results.generatedAt.slice(0, 10);

/** The checks of the run, as a clause: every one OK, or those that failed. */
function checksClause(results: BenchResults): string {
  if (allChecksPassed(results)) return 'every check OK';
  const { checks } = results;
  const failed = [
    checks.initRatios ? '' : `an init ratio over ${checks.initRatioAtMost}`,
    checks.zips ? '' : 'a zip over its budget',
    checks.roundTripsEqualMinimum ? '' : 'round trips off their documented minimum',
    checks.refreshCost ? '' : `a refresh over $${checks.refreshDollarsPerMillionAtMost} per million`,
    checks.answerTimeEqual ? '' : `login_phone answer times over ${checks.answerTimeWithinMs} ms apart`,
    checks.underTenMinutes ? '' : `a run of ${checks.totalSecondsUnder} s or more`,
  ].filter(Boolean);
  return `checks failed: ${failed.join('; ')} (the report's last line)`;
}

/** docs/performance.md's latest figures: the run, and the whole report it printed. */
export function performanceFigures(results: BenchResults): string {
  const { machine } = results;
  return [
    `From \`npm run bench\` on ${day(results)} at ${results.generatedAt.slice(11, 16)} UTC (${machine.cpu}, ${machine.cores} cores, Node ` +
      `${machine.node}; load average ${machine.loadAverageAtStart[0]} at its start), ${results.checks.totalSeconds} s: ${checksClause(results)}. ` +
      '`bench/results.json` holds these figures with every detail; "How to read the figures" below says how far a run moves them.',
    '',
    '```text',
    benchReport(results).trimEnd(),
    '```',
  ].join('\n');
}

/** The README's costs: a million of each thing a wallet does most. */
export function readmeCosts(results: BenchResults): string {
  const warm = (endpoint: string, outcome: string, hashing?: string) =>
    results.warm.find((entry) => entry.endpoint === endpoint && entry.outcome === outcome && (!hashing || entry.hashing === hashing));
  const registration = warm('userRegister', 'new user', 'real');
  const send = warm('loginPhone', 'first send in window');
  const publisher = results.eventsPublisher;
  return [
    `From \`npm run bench\` on ${day(results)}, at a load average of ${results.machine.loadAverageAtStart[0]} (${results.prices.region} list prices of ${results.prices.asOf};`,
    'every endpoint and outcome, how they are counted and how far a loaded machine moves them, in [docs/performance.md](docs/performance.md)):',
    '',
    '| per million | USD |',
    '| --- | --- |',
    `| registrations (Lambda at ${registration?.memoryMb} MB with the real scrypt, DynamoDB) | ${usd(registration?.costPerMillionCalls.total ?? Number.NaN)} |`,
    `| logins by OTP (login_phone + verify_otp; the SMS is $${usd(send?.costPerMillionCalls.sms ?? Number.NaN)} of it) | ${usd(results.loginCostPerMillion.otp)} |`,
    `| logins by PIN on a trusted device | ${usd(results.loginCostPerMillion.pin)} |`,
    `| logins by passkey (options + assertion; no SMS) | ${usd(results.loginCostPerMillion.passkey)} |`,
    `| token refreshes | ${usd(results.refreshCostPerMillion.refresh)} |`,
    `| token refreshes bound by DPoP (the proof checked, its jti spent) | ${usd(results.refreshCostPerMillion.bound)} |`,
    `| events published by \`eventsPublish\` (batches of ${publisher.records} stream records; ${usd(publisher.perMillionEventsOneRecordBatches.total)} when each batch holds one) | ${usd(publisher.perMillionEvents.total)} |`,
  ].join('\n');
}

/** The pages the bench writes figures into, each with what it writes there. */
export const BENCH_PAGES: Record<string, (results: BenchResults) => string> = {
  'README.md': readmeCosts,
  'docs/performance.md': performanceFigures,
};

/** What stands between a page's markers (undefined without them). */
export function writtenFigures(page: string): string | undefined {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  return start < 0 || end < start ? undefined : page.slice(start + START.length, end).trim();
}

export const readResults = (root: string, file = DEFAULT_OUTPUT): BenchResults =>
  JSON.parse(readFileSync(resolve(root, file), 'utf8')) as BenchResults;

/** Writes each page's figures from the results between its markers; answers the pages written. */
export function writeBenchDocs(root: string, results: BenchResults): string[] {
  return Object.entries(BENCH_PAGES).map(([name, figures]) => {
    const file = resolve(root, name);
    const page = readFileSync(file, 'utf8');
    const start = page.indexOf(START);
    const end = page.indexOf(END);
    if (start < 0 || end < start) throw new Error(`${name} has no ${START} ... ${END} for the bench's figures`);
    writeFileSync(file, `${page.slice(0, start + START.length)}\n${figures(results)}\n${page.slice(end)}`);
    return name;
  });
}
