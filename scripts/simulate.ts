// npm run simulate [-- --seed N]
// Replays the scale scenario of docs/scaling.md (5,000 logins a second, 500 registrations a
// second, 100,000 referrals to one referrer in an hour, 200 companies) against a model of the
// limits that bind first, before and after the changes of issue 24, and prints the rate at which
// each hot item saturates. Pure computation with a seeded generator: bounded (a few seconds) and
// the same figures on every run with the same seed.
import { parseArgs } from 'node:util';
import { type Model, SCENARIO, simulate } from './simulate/model.js';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '24' } } });
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) {
  console.error('usage: npm run simulate -- [--seed N]');
  process.exit(2);
}

const results = simulate(seed);
const rate = (value: number) => (Number.isFinite(value) ? `${Math.round(value).toLocaleString('en-US')}/s` : 'none');
const rows: [string, string, string, string, string][] = results.map((result: Model) => [
  result.item,
  result.limit,
  rate(result.before.saturatesAt),
  rate(result.after.saturatesAt),
  `${result.before.atPeak} -> ${result.after.atPeak}`,
]);
const header: [string, string, string, string, string] = [
  'hot item',
  'binding limit',
  'saturates at (before)',
  'after',
  'at the scenario peak',
];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
console.log(
  `scenario: ${SCENARIO.loginsPerSecond.toLocaleString('en-US')} logins/s, ${SCENARIO.registrationsPerSecond} registrations/s, ` +
    `${SCENARIO.referralsPerHour.toLocaleString('en-US')} referrals/h to one referrer, ${SCENARIO.companies} companies (seed ${seed})`,
);
console.log(line(header));
console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
for (const row of rows) console.log(line(row));
