// The DynamoDB round trips of PIN login, the device list and removal, change_pin and reset_pin,
// counted on the service's own client for the bench's scenarios (scripts/bench/device-scenarios.ts):
// each must equal its documented minimum (scripts/bench/minimum-round-trips.ts, docs/performance.md).
import { expect, it } from 'vitest';
import { runDeviceScenarios } from '../../scripts/bench/device-scenarios.js';
import { RoundTripCounter } from '../../scripts/bench/round-trips.js';
import { runScenario, type ScenarioResult } from '../../scripts/bench/warm-latency.js';
import { newCompany, randomPhoneNumber, testService } from '../helpers.js';

// As the bench measures: a warm company cache.
const service = testService({ COMPANY_CACHE_SECONDS: '30' });

it('makes exactly the documented minimum of DynamoDB requests for every device and PIN outcome', async () => {
  const counter = new RoundTripCounter();
  counter.attach(service.app.table.client);
  const company = await newCompany(service);
  const results: ScenarioResult[] = [];
  await runDeviceScenarios(service, company, [randomPhoneNumber(), randomPhoneNumber()], async (spec) => {
    results.push(await runScenario(spec, counter));
  });
  expect(results).toHaveLength(17);
  for (const result of results) {
    const seen = { requests: result.requests, sequential: result.sequential, operations: result.operations };
    expect(result.matchesMinimum, `${result.endpoint} / ${result.outcome}: ${JSON.stringify(seen)}`).toBe(true);
  }
}, 60_000);
