// The AWS clients as every function builds them (lib/aws/clients.ts), against DynamoDB Local through
// the fault proxy: a stalled first attempt is given up at DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS and the
// retry gets the whole timeout, and calls keep their retries however many have failed before (the
// SDK's client-wide quota let none retry once a few dozen calls had needed two).
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awsClient, dynamodbCallBudgetMs } from '../../lib/aws/clients.js';
import { readConfig } from '../../lib/config.js';
import { type FaultMode, type FaultProxy, startFaultProxy } from '../harness/fault-proxy.js';
import { TEST_TABLE, testEnvironment } from '../helpers.js';

let proxy: FaultProxy;
beforeAll(async () => {
  proxy = await startFaultProxy(inject('dynamodbEndpoint'));
});
afterAll(() => proxy?.close());

/** The service's DynamoDB client through the proxy, with these settings. */
const clientOf = (settings: Record<string, string>) =>
  awsClient(DynamoDBClient, readConfig(testEnvironment({ DYNAMODB_ENDPOINT: proxy.endpoint, ...settings })), 'dynamodb');

const get = (client: DynamoDBClient, id: string) =>
  client.send(new GetItemCommand({ TableName: TEST_TABLE, Key: { pk: { S: `CLIENTS#${id}` }, sk: { S: 'x' } } }));

describe('a DynamoDB client of the service', () => {
  it('gives up a stalled first attempt at DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS and sends it again with the whole timeout', async () => {
    const client = clientOf({ DYNAMODB_TIMEOUT_MS: '8000', DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS: '200' });
    proxy.reset();
    let calls = 0;
    proxy.rule = () => (calls++ === 0 ? 'hang' : 'pass');
    await expect(get(client, 'stalled')).resolves.toBeDefined();
    const [first, second, ...more] = proxy.seen;
    expect(more).toEqual([]);
    expect([first?.operation, first?.mode, second?.operation, second?.mode]).toEqual(['GetItem', 'hang', 'GetItem', 'pass']);
    // Sent again once the first attempt's 200 ms were up, long before the whole timeout's 8 s.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(190);
    expect(second!.at - first!.at).toBeLessThan(8000);
    client.destroy();
  });

  it('keeps every call’s retries however many calls needed them: 60 calls, each failing twice, all answered', async () => {
    const client = clientOf({ DYNAMODB_MAX_ATTEMPTS: '3' });
    proxy.reset();
    const attempts = new Map<string, number>();
    proxy.rule = ({ body }) => {
      const seen = (attempts.get(body) ?? 0) + 1;
      attempts.set(body, seen);
      return seen <= 2 ? 'server-error' : 'pass';
    };
    for (let call = 0; call < 60; call++) await get(client, `retried-${call}`);
    expect(proxy.seen.filter((request) => request.mode === 'server-error')).toHaveLength(120);
    proxy.reset();
    client.destroy();
  });

  it('retries fast failures up to DYNAMODB_MAX_ATTEMPTS (a reset, a 500, throttling: five, then answered)', async () => {
    const client = clientOf({ DYNAMODB_MAX_ATTEMPTS: '6' });
    proxy.reset();
    const faults: FaultMode[] = ['reset', 'server-error', 'throttle', 'reset', 'server-error'];
    let calls = 0;
    proxy.rule = () => faults[calls++] ?? 'pass';
    await expect(get(client, 'fast-failures')).resolves.toBeDefined();
    expect(proxy.seen.map((request) => request.mode)).toEqual([...faults, 'pass']);
    proxy.reset();
    client.destroy();
  });

  it('gives a stalled table up as soon as three attempts would: no retry that would end past the call’s budget', async () => {
    const settings = { DYNAMODB_MAX_ATTEMPTS: '6', DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS: '100', DYNAMODB_TIMEOUT_MS: '300' };
    const client = clientOf(settings);
    const budgetMs = dynamodbCallBudgetMs({ dynamodbFirstAttemptTimeoutMs: 100, dynamodbTimeoutMs: 300 });
    proxy.reset();
    proxy.rule = () => 'hang';
    const started = performance.now();
    await expect(get(client, 'stalled-table')).rejects.toThrow();
    // The first attempt (100 ms) and two retries (300 ms each): a fourth would end past 100 + 2 × 300 ms and their backoff.
    expect(proxy.seen.map((request) => request.mode)).toEqual(['hang', 'hang', 'hang']);
    expect(performance.now() - started).toBeLessThan(budgetMs + 200);
    proxy.reset();
    client.destroy();
  });
});
