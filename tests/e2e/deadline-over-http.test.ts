// A function that runs out of time, served by serverless-offline: DynamoDB made so slow (through
// the fault proxy, with the SDK's own timeout raised past the function's) that no request can
// finish. The answer must be the 503 envelope with code 16 and Retry-After, before the
// function's 10 s timeout, never serverless-offline's HTTP 200 with errorMessage and stackTrace.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../harness/fault-proxy.js';
import { newCompany } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { OFFLINE_START_TIMEOUT_MS, type OfflineServer, startOffline } from './offline-server.js';

let proxy: FaultProxy;
let server: OfflineServer;

beforeAll(async () => {
  proxy = await startFaultProxy(inject('dynamodbEndpoint'));
  server = await startOffline({ DYNAMODB_ENDPOINT: proxy.endpoint, DYNAMODB_TIMEOUT_MS: '30000' });
}, OFFLINE_START_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  await proxy?.close();
});

/** The duration serverless-offline reports for the function's one invocation (it logs it after the answer). */
async function invocationDuration(server: OfflineServer, functionKey: string): Promise<number> {
  const line = new RegExp(`\\(λ: ${functionKey}\\) RequestId: \\S+\\s+Duration: ([\\d.]+) ms`);
  // serverless-offline logs it after the answer, as soon as a loaded machine lets it: the test's timeout bounds the wait.
  await expect.poll(() => server.output(), { timeout: 30_000 }).toMatch(line);
  const durations = [...server.output().matchAll(new RegExp(line, 'g'))].map((match) => Number(match[1]));
  expect(durations).toHaveLength(1);
  return durations[0]!;
}

describe('a request that runs out of time over HTTP', () => {
  it('answers 503, code 16, with Retry-After, in the envelope, before the function timeout', async () => {
    const company = await newCompany(server.local);
    proxy.reset();
    proxy.rule = () => 'hang';
    const started = performance.now();
    const response = await fetch(`${server.baseUrl}/wallet/v3/reward_promotion/referral_program`, {
      headers: { CompanyID: company.company_id, Authorization: `Token ${'a'.repeat(43)}` },
    });
    const elapsed = performance.now() - started;
    const text = await response.text();
    const held = proxy.seen.map((request) => request.operation);
    proxy.reset();

    expect(text).not.toMatch(/errorMessage|stackTrace|Lambda timeout/);
    const body = JSON.parse(text);
    expect(response.status, text).toBe(503);
    expect(body).toEqual({ success: 0, error: [16], data: { message: 'SERVICE_UNAVAILABLE' } });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expectDocumented({
      method: 'GET',
      path: '/wallet/v3/reward_promotion/referral_program',
      status: response.status,
      headers: response.headers,
      body,
    });
    // The function's timeout is 10 s; the service answers 1 s (DEADLINE_MARGIN_MS) before it,
    // counted from the request's arrival. Not earlier: the answer cannot come before the deadline,
    // however loaded the machine, so the client's own clock bounds it from below.
    expect(elapsed).toBeGreaterThan(8_000);
    // And inside the timeout, as Lambda counts it: the invocation's own duration, which
    // serverless-offline reports, not the client's view, which a loaded machine stretches.
    const duration = await invocationDuration(server, 'referralProgram');
    expect(duration).toBeLessThan(10_000);
    // What held it: the company lookup, the chain's first DynamoDB read, never answered (sent
    // again once its first attempt's DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS passed, when the machine
    // leaves the retry time before the deadline). Nothing else of this server calls DynamoDB: the
    // eraser's hourly schedule is off on the test stage (at the top of an hour its Query came in).
    expect(server.output()).toMatch(/Scheduling \[accountsErase\] cron: disabled/);
    expect(held.length).toBeGreaterThan(0);
    expect(new Set(held)).toEqual(new Set(['GetItem']));
  }, 30_000);
});
