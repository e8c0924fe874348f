// A short `npm run chaos`: real flows for a few seconds with 30 % of DynamoDB and SNS requests
// faulted, then the check of everything answered (scripts/local/chaos-run.ts). The full run is
// `npm run chaos` (120 s).
import { expect, inject, it } from 'vitest';
import { runChaos } from '../../scripts/local/chaos-run.js';

it('gives no wrong answer under 30 % faults: ambiguous registrations come back with their first outcome, nothing partial', async () => {
  const report = await runChaos({ dynamodbEndpoint: inject('dynamodbEndpoint'), seconds: 10, faults: 0.3, clients: 4 });
  expect(report.wrong).toEqual([]);
  expect(report.registrations).toBeGreaterThan(0);
  expect(Object.values(report.faultsByKind).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
}, 90_000);
