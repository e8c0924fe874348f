// The DynamoDB round trips of a passkey's registration and login, and of a login and refresh bound
// by DPoP, counted on the service's own client for the bench's scenarios
// (scripts/bench/passkey-scenarios.ts): each must equal its documented minimum
// (scripts/bench/minimum-round-trips.ts, docs/performance.md).
import { expect, it } from 'vitest';
import { runPasskeyScenarios } from '../../scripts/bench/passkey-scenarios.js';
import { RoundTripCounter } from '../../scripts/bench/round-trips.js';
import { runScenario, type ScenarioResult } from '../../scripts/bench/warm-latency.js';
import { newCompany, randomPhoneNumber, testService } from '../helpers.js';

// As the bench measures: a warm company cache.
const service = testService({ COMPANY_CACHE_SECONDS: '30' });

it('makes exactly the documented minimum of DynamoDB requests for every passkey and bound-token outcome', async () => {
  const counter = new RoundTripCounter();
  counter.attach(service.app.table.client);
  const company = await newCompany(service);
  const results: ScenarioResult[] = [];
  await runPasskeyScenarios(service, company, [randomPhoneNumber(), randomPhoneNumber()], async (spec) => {
    results.push(await runScenario(spec, counter));
  });
  expect(results.map(({ endpoint, outcome }) => `${endpoint} / ${outcome}`)).toEqual([
    'passkeysRegisterOptions / creation options',
    'passkeysRegister / registered',
    'passkeysLoginOptions / no phone typed (discoverable)',
    'passkeysLogin / right assertion',
    'passkeysLoginOptions / no phone typed (discoverable)',
    'passkeysLogin / right assertion, bound (DPoP)',
    'tokenRefresh / new pair, bound (DPoP)',
  ]);
  // Every row that differs, at once.
  const off = results
    .filter((result) => !result.matchesMinimum)
    .map(
      ({ endpoint, outcome, requests, sequential, operations }) =>
        `${endpoint} / ${outcome}: ${JSON.stringify({ requests, sequential, operations })}`,
    );
  expect(off).toEqual([]);
}, 60_000);
