// Transaction authorization end to end (API contract 3.8): the app authorizes over HTTP through
// serverless-offline, and the payment service redeems through serverless-offline's Lambda API
// (POST /2015-03-31/functions/wallet-auth-<stage>-redeemAuthorization/invocations), the PSD2 rules
// one by one: used twice, expired, each value changed, another user's and another company's token,
// 10 redeems at once, 10 wrong PINs at once.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../lib/secrets/hashing.js';
import { authorizationKey } from '../../lib/store/keys.js';
import { signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { expectFiveComparedFiveRefused, newCompany } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();
const AUTHORIZE = '/wallet/v3/auth/transaction_authorization';
const PIN = '1397';
let sequence = 0;

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method: 'POST',
    headers: { CompanyID: service.company.company_id, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method: 'POST', path, ...answer });
  return answer;
}

/**
 * A customer registered through the server's in-process twin (same table and secret; registering
 * over HTTP is registration-over-http's), holding a strong session (contract 3.15: only a PIN login
 * on a settled device pays): the Authorization header of its token, and their id.
 */
async function customer(company = service.company): Promise<{ authorization: string; userId: string }> {
  const { account, device } = await signUpWithDevice(service.server.local, company, { transaction_pin: PIN });
  return { authorization: await strongSession(service.server.local, company, device), userId: account.userId };
}

const payment = () => ({ amount: '25.00', currency: 'EUR', payee: 'Acme Coffee', reference: `order-${Date.now()}-${sequence++}` });

async function authorize(authorization: string, body: Record<string, unknown>, pin = PIN) {
  return post(AUTHORIZE, { transaction_pin: pin, ...body }, { Authorization: authorization });
}

async function authorized(authorization: string, body: Record<string, unknown>): Promise<string> {
  const answer = await authorize(authorization, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.data.expires_in).toBe(120);
  return answer.body.data.authorization_token;
}

/** The payment service's call: the local Lambda API, as `aws lambda invoke` reaches the deployed one. */
async function redeem(payload: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.server.lambdaUrl}/2015-03-31/functions/wallet-auth-test-redeemAuthorization/invocations`, {
    method: 'POST',
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: await response.json() };
}

const invalid = { status: 200, body: { success: 0, error: [19], data: { message: 'BAD_REQUEST' } } };

describe('transaction authorization over HTTP, redeemed through the local Lambda API', () => {
  it('redeems once, amounts compared as decimals; used twice is 19', async () => {
    const ada = await customer();
    const body = payment();
    const token = await authorized(ada.authorization, body);
    const redeemed = await redeem({ ...body, amount: '25', company_id: service.company.company_id, authorization_token: token });
    expect(redeemed, service.server.output()).toEqual({
      status: 200,
      body: {
        success: 1,
        error: [],
        data: {
          user_id: ada.userId,
          amount: '25',
          currency: 'EUR',
          payee: 'Acme Coffee',
          reference: body.reference,
          authorized_date: expect.any(Number),
          // The strength of the session that approved it (contract 3.15), for the payment service's own limits.
          acr: 'strong',
        },
      },
    });
    expect(await redeem({ ...body, company_id: service.company.company_id, authorization_token: token })).toEqual(invalid);
  });

  it('refuses each value changed with 19, the same answer each time, and still redeems the approved one', async () => {
    const ada = await customer();
    const body = payment();
    const token = await authorized(ada.authorization, body);
    const approved = { ...body, company_id: service.company.company_id, authorization_token: token };
    for (const change of [{ amount: '25.01' }, { currency: 'USD' }, { payee: 'Acme Tea' }, { reference: `${body.reference}-2` }]) {
      expect(await redeem({ ...approved, ...change }), JSON.stringify(change)).toEqual(invalid);
    }
    expect((await redeem(approved)).body.success).toBe(1);
  });

  it('refuses an expired authorization with 19', async () => {
    const ada = await customer();
    const body = payment();
    const token = await authorized(ada.authorization, body);
    // Its end moved to the past (as 120 s of waiting would), in the server's own table.
    await service.server.local.app.table.client.send(
      new UpdateCommand({
        TableName: service.server.local.app.table.name,
        Key: authorizationKey(service.company.company_id, hashToken(token)),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect(await redeem({ ...body, company_id: service.company.company_id, authorization_token: token })).toEqual(invalid);
  });

  it("refuses another company's token (19) and a session token by its shape (1); another user's redeems to that user", async () => {
    const [ada, grace] = [await customer(), await customer()];
    const body = payment();
    const adaToken = await authorized(ada.authorization, body);
    const graceToken = await authorized(grace.authorization, body);
    const other = await newCompany(service.server.local);
    expect(await redeem({ ...body, company_id: other.company_id, authorization_token: adaToken })).toEqual(invalid);
    const sessionToken = ada.authorization.slice('Token '.length);
    expect((await redeem({ ...body, company_id: service.company.company_id, authorization_token: sessionToken })).body.error).toEqual([1]);
    expect((await redeem({ ...body, company_id: service.company.company_id, authorization_token: graceToken })).body.data.user_id).toBe(
      grace.userId,
    );
    // A token of another company's user, presented in this company, is 401 on the HTTP side.
    const stranger = await customer(other);
    expect((await authorize(stranger.authorization, payment())).status).toBe(401);
  });

  it('gives exactly one success to 10 concurrent redeems of one authorization', async () => {
    const ada = await customer();
    const body = payment();
    const token = await authorized(ada.authorization, body);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => redeem({ ...body, company_id: service.company.company_id, authorization_token: token })),
    );
    expect(answers.filter((answer) => answer.body.success === 1)).toHaveLength(1);
    expect(answers.filter((answer) => answer.body.error?.[0] === 19)).toHaveLength(9);
  });

  it('counts 10 concurrent wrong PINs exactly: 17 with 4..0 tries left, then locked (18), the right PIN too', async () => {
    const ada = await customer();
    const answers = await Promise.all(Array.from({ length: 10 }, () => authorize(ada.authorization, payment(), '2468')));
    expectFiveComparedFiveRefused(answers);
    expect((await authorize(ada.authorization, payment())).body).toEqual({ success: 0, error: [18], data: { message: 'BAD_REQUEST' } });
  });

  it('answers a malformed payload in the envelope (400, code 1), never as a Lambda error', async () => {
    expect(await redeem('not an object')).toMatchObject({ status: 200, body: { success: 0, error: [1] } });
    expect(await redeem({ company_id: 'nope' })).toMatchObject({ status: 200, body: { success: 0, error: [1] } });
  });
});
