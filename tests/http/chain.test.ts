import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as notFound } from '../../functions/not-found.js';
import { handler as register } from '../../functions/user-register.js';
import type { Company } from '../../lib/companies/companies.js';
import { AppError } from '../../lib/errors.js';
import { apiHandler } from '../../lib/http/api-handler.js';
import { documentClient, tableName } from '../../lib/store/dynamo-client.js';
import { companyKey } from '../../lib/store/keys.js';
import { invoke, newCompany, sampleRegistration } from '../helpers.js';

const PATH = '/wallet/v3/auth/user_register';
let company: Company;

beforeAll(async () => {
  company = await newCompany();
});

const expectFailure = (answer: Awaited<ReturnType<typeof invoke>>, status: number, code: number, message: string) => {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ success: 0, error: [code], data: { message } });
  expect(answer.headers['content-type']).toBe('application/json');
};

describe('CompanyID', () => {
  it('is required (400, code 2)', async () => {
    expectFailure(await invoke(register, { path: PATH, body: sampleRegistration() }), 400, 2, 'BAD_REQUEST');
  });

  it.each(['abc', 'g'.repeat(32), '0'.repeat(33), ' ', '0'.repeat(31)])('must be 32 hex characters, not %j', async (value) => {
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: value }, body: sampleRegistration() });
    expectFailure(answer, 400, 2, 'BAD_REQUEST');
  });

  it('of no company answers 404, code 3', async () => {
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: 'ab'.repeat(16) }, body: sampleRegistration() });
    expectFailure(answer, 404, 3, 'NOT_FOUND');
  });

  it('of a disabled company answers 404, code 3', async () => {
    const disabled = await newCompany();
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: companyKey(disabled.company_id),
        UpdateExpression: 'SET #status = :disabled',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':disabled': 'disabled' },
      }),
    );
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: disabled.company_id }, body: sampleRegistration() });
    expectFailure(answer, 404, 3, 'NOT_FOUND');
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
    expectFailure(await send(big), 413, 13, 'PAYLOAD_TOO_LARGE');
  });

  it('that is malformed JSON answers 400, code 1', async () => {
    const answer = await send('{"dial_code": "+1",');
    expectFailure(answer, 400, 1, 'BAD_REQUEST');
    expect(answer.body.data.errors).toEqual([{ code: 1, field: 'body', detail: 'is not valid JSON' }]);
  });

  it.each(['[]', '"text"', '42', 'null'])('that is not an object (%s) answers 400, code 1', async (body) => {
    expectFailure(await send(body), 400, 1, 'BAD_REQUEST');
  });

  it('of another content type answers 400, code 1', async () => {
    expectFailure(await send('a=b', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 1, 'BAD_REQUEST');
  });

  it('that is missing altogether lists the required fields', async () => {
    const answer = await invoke(register, { path: PATH, headers: { CompanyID: company.company_id } });
    expectFailure(answer, 400, 1, 'BAD_REQUEST');
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toContain('phone_number');
  });

  it('base64-encoded by API Gateway is decoded', async () => {
    const event = { path: PATH, headers: { CompanyID: company.company_id }, body: sampleRegistration() };
    const { httpEvent } = await import('../helpers.js');
    const raw = httpEvent(event);
    raw.body = Buffer.from(raw.body!).toString('base64');
    raw.isBase64Encoded = true;
    const result = await register(raw, {} as never);
    expect(result.statusCode).toBe(200);
  });
});

describe('errors', () => {
  it('an unknown route answers 404, code 6, in the envelope', async () => {
    expectFailure(await invoke(notFound, { method: 'GET', path: '/wallet/v3/nothing' }), 404, 6, 'NOT_FOUND');
  });

  it('an unexpected error answers 500 with no stack, message or internal name', async () => {
    const failing = apiHandler({ auth: 'none' }, async () => {
      throw new Error('ConditionalCheckFailedException at /var/task/lib/store/secret-table.ts:12');
    });
    const answer = await invoke(failing, { headers: { CompanyID: company.company_id } });
    expectFailure(answer, 500, 500, 'INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(answer.body)).toEqual('{"success":0,"error":[500],"data":{"message":"INTERNAL_SERVER_ERROR"}}');
  });

  it('a refusal carries its own headers, such as Retry-After', async () => {
    const limited = apiHandler({ auth: 'none' }, async () => {
      throw new AppError('TOO_MANY_REQUESTS', { headers: { 'retry-after': '60' } });
    });
    const answer = await invoke(limited, { headers: { CompanyID: company.company_id } });
    expectFailure(answer, 429, 12, 'TOO_MANY_REQUESTS');
    expect(answer.headers['retry-after']).toBe('60');
  });

  it('a call that needs a token refuses its absence with 401, code 4', async () => {
    const guarded = apiHandler({ auth: 'required' }, async () => ({ ok: true }));
    expectFailure(await invoke(guarded, { headers: { CompanyID: company.company_id } }), 401, 4, 'UNAUTHORIZED');
  });

  it('DynamoDB out of reach answers 500 in the envelope', async () => {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    // A handler whose only work is a call to a closed port.
    const unreachable = apiHandler({ auth: 'none' }, async () => {
      const client = new DynamoDBClient({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', maxAttempts: 1 });
      const { ListTablesCommand } = await import('@aws-sdk/client-dynamodb');
      return client.send(new ListTablesCommand({}));
    });
    expectFailure(await invoke(unreachable, { headers: { CompanyID: company.company_id } }), 500, 500, 'INTERNAL_SERVER_ERROR');
  });
});
