import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod/mini';
import type { Company } from '../../lib/companies/companies.js';
import { AppError } from '../../lib/errors.js';
import { apiHandler } from '../../lib/http/api-handler.js';
import type { Endpoint } from '../../lib/http/endpoint.js';
import { companyKey } from '../../lib/store/keys.js';
import { type FaultProxy, startFaultProxy } from '../harness/fault-proxy.js';
import {
  expectFailure,
  expectUnavailable,
  httpEvent,
  type InProcessService,
  invoke,
  lambdaContext,
  newCompany,
  sampleRegistration,
  testService,
} from '../helpers.js';

const service = testService();
const notFound = service.handlers.notFound;
const register = service.handlers.userRegister;

const PATH = '/wallet/v3/auth/user_register';
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

/** An endpoint for the chain alone, with the handler the case gives it. */
const bareEndpoint = (auth: Endpoint['auth']) =>
  ({
    operationId: 'chainTest',
    method: 'POST',
    path: '/chain-test',
    summary: 'chain test',
    tag: 'auth',
    description: () => '',
    auth,
    result: z.object({ ok: z.boolean() }),
    errors: [],
    examples: { result: { ok: true } },
    grants: {},
  }) as const satisfies Endpoint;

describe('CompanyID', () => {
  it('is required (400, code 2)', async () => {
    expectFailure(await invoke(register, { path: PATH, body: sampleRegistration() }), 400, 2);
  });

  it.each(['abc', 'g'.repeat(32), '0'.repeat(33), ' ', '0'.repeat(31)])('must be 32 hex characters, not %j', async (value) => {
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: value }, body: sampleRegistration() });
    expectFailure(answer, 400, 2);
  });

  it('of no company answers 404, code 3', async () => {
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: 'ab'.repeat(16) }, body: sampleRegistration() });
    expectFailure(answer, 404, 3);
  });

  it('of a disabled company answers 404, code 3', async () => {
    const disabled = await newCompany(service);
    await service.app.table.client.send(
      new UpdateCommand({
        TableName: service.app.table.name,
        Key: companyKey(disabled.company_id),
        UpdateExpression: 'SET #status = :disabled',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':disabled': 'disabled' },
      }),
    );
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: disabled.company_id }, body: sampleRegistration() });
    expectFailure(answer, 404, 3);
  });

  it('is read whatever the case of the header name and of its hex digits', async () => {
    const answer = await invoke(register, {
      path: PATH,
      headers: { COMPANYID: company.company_id.toUpperCase() },
      body: sampleRegistration(),
    });
    expect(answer.status).toBe(200);
  });
});

describe('request body', () => {
  const send = (body: string, headers: Record<string, string> = {}) =>
    invoke(register, { path: PATH, headers: { CompanyID: company.company_id, ...headers }, body });

  it('over 16 KiB is refused with 413, code 13', async () => {
    const big = JSON.stringify(sampleRegistration({ padding: 'x'.repeat(16 * 1024) }));
    expectFailure(await send(big), 413, 13);
  });

  it('that is malformed JSON answers 400, code 1', async () => {
    const answer = await send('{"dial_code": "+1",');
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors).toEqual([{ code: 1, field: 'body', detail: 'is not valid JSON' }]);
  });

  it.each(['[]', '"text"', '42', 'null'])('that is not an object (%s) answers 400, code 1', async (body) => {
    expectFailure(await send(body), 400, 1);
  });

  it('of another content type answers 400, code 1', async () => {
    expectFailure(await send('a=b', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 1);
  });

  it('that is missing altogether lists the required fields', async () => {
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: company.company_id } });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toContain('phone_number');
  });

  it('base64-encoded by API Gateway is decoded', async () => {
    const event = { path: PATH, headers: { CompanyID: company.company_id }, body: sampleRegistration() };
    const raw = httpEvent(event);
    raw.body = Buffer.from(raw.body!).toString('base64');
    raw.isBase64Encoded = true;
    const result = await register(raw, lambdaContext());
    expect(result.statusCode).toBe(200);
  });
});

describe('errors', () => {
  it('an unknown route answers 404, code 6, in the envelope', async () => {
    expectFailure(await invoke(notFound, { method: 'GET', path: '/wallet/v3/nothing' }), 404, 6);
  });

  it('an unexpected error answers 500 with no stack, message or internal name', async () => {
    const failing = apiHandler(service.app, bareEndpoint('none'), async () => {
      throw new Error('ConditionalCheckFailedException at /var/task/lib/store/secret-table.ts:12');
    });
    const answer = await invoke(failing, { headers: { CompanyID: company.company_id } });
    expectFailure(answer, 500, 500);
    expect(JSON.stringify(answer.body)).toEqual('{"success":0,"error":[500],"data":{"message":"INTERNAL_SERVER_ERROR"}}');
  });

  it('a refusal carries its own headers, such as Retry-After', async () => {
    const limited = apiHandler(service.app, bareEndpoint('none'), async () => {
      throw new AppError('TOO_MANY_REQUESTS', { headers: { 'retry-after': '60' } });
    });
    const answer = await invoke(limited, { headers: { CompanyID: company.company_id } });
    expectFailure(answer, 429, 12);
    expect(answer.headers['retry-after']).toBe('60');
  });

  it('a call that needs a token refuses its absence with 401, code 4', async () => {
    const guarded = apiHandler(service.app, bareEndpoint('required'), async () => ({ ok: true }));
    expectFailure(await invoke(guarded, { headers: { CompanyID: company.company_id } }), 401, 4);
  });
});

// The service's own client, configured as every function configures it, reaching DynamoDB
// through a proxy that can refuse connections.
let proxy: FaultProxy;
let throughProxy: InProcessService;
beforeAll(async () => {
  proxy = await startFaultProxy(inject('dynamodbEndpoint'));
  throughProxy = testService({ DYNAMODB_ENDPOINT: proxy.endpoint });
});
afterAll(() => proxy?.close());

describe('the service’s own DynamoDB client, through the fault proxy', () => {
  it('out of reach: the company lookup fails and the answer is 503, code 16, with Retry-After, in the envelope', async () => {
    await proxy.setReachable(false);
    try {
      const answer = await invoke(throughProxy.handlers.userRegister, {
        path: PATH,
        headers: { CompanyID: company.company_id },
        body: sampleRegistration(),
      });
      expectUnavailable(answer);
    } finally {
      await proxy.setReachable(true);
    }
    // The same service answers once the table is back.
    const answer = await invoke(throughProxy.handlers.userRegister, {
      path: PATH,
      headers: { CompanyID: company.company_id },
      body: sampleRegistration(),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });
});
