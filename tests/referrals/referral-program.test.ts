import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { userKey } from '../../lib/store/keys.js';
import { type Account, type Answer, expectFailure, invoke, newCompany, newEmployee, signUp, testService } from '../helpers.js';

const service = testService();
const referralProgram = service.handlers.referral_program;

const PATH = '/wallet/v3/reward_promotion/referral_program';
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

function list(
  account: Account | undefined,
  query: Record<string, string> = {},
  options: { body?: unknown; companyId?: string } = {},
): Promise<Answer> {
  return invoke(referralProgram, {
    method: 'GET',
    path: PATH,
    headers: { CompanyID: options.companyId ?? company.company_id, ...(account ? { Authorization: account.authorization } : {}) },
    query,
    body: options.body,
  });
}

/** Signs up `count` users with the referrer's code, `concurrency` at a time. */
async function referMany(referrer: Account, count: number, concurrency = 5): Promise<void> {
  for (let done = 0; done < count; done += concurrency) {
    const batch = Math.min(concurrency, count - done);
    await Promise.all(Array.from({ length: batch }, () => signUp(service, company, { referral_code: referrer.referralCode })));
  }
}

describe('the referral list', () => {
  it('lists referral notifications newest first, with exactly the seed fields, the code and the count', async () => {
    const referrer = await signUp(service, company);
    await signUp(service, company, { first_name: 'Bea', referral_code: referrer.referralCode });
    await signUp(service, company, { first_name: 'Cal', referral_code: referrer.referralCode });

    const answer = await list(referrer);
    expect(answer.status).toBe(200);
    const { data } = answer.body;
    expect(data.referral_code).toBe(referrer.referralCode);
    expect(data.referral_count).toBe(2);
    expect(data.next_cursor).toBeNull();
    expect(data.notification).toHaveLength(2);
    expect(data.notification.map((n: { notification_body: string }) => n.notification_body)).toEqual([
      expect.stringContaining('Cal'),
      expect.stringContaining('Bea'),
    ]);
    for (const notification of data.notification) {
      expect(Object.keys(notification).sort()).toEqual([
        'created_date',
        'id',
        'is_read',
        'notification_body',
        'notification_event_type',
        'notification_title',
        'notification_type',
        'updated_date',
        'user_id',
      ]);
      expect(notification).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        user_id: referrer.userId,
        is_read: 0,
        notification_title: expect.any(String),
        notification_body: expect.any(String),
        notification_type: 1,
        notification_event_type: 1,
        created_date: expect.any(Number),
        updated_date: expect.any(Number),
      });
      // UNIX seconds, not milliseconds.
      expect(Math.abs(notification.created_date - Date.now() / 1000)).toBeLessThan(120);
    }
    expect(data.notification[0].created_date).toBeGreaterThanOrEqual(data.notification[1].created_date);
  });

  it('answers an empty list with the own code and a zero count for a new user', async () => {
    const loner = await signUp(service, company);
    const answer = await list(loner);
    expect(answer.body.data).toEqual({ notification: [], referral_code: loner.referralCode, referral_count: 0, next_cursor: null });
  });

  it('pages through 45 referrals with limit 20: three pages, nothing repeated, nothing missed', async () => {
    const referrer = await signUp(service, company);
    await referMany(referrer, 45);
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const answer = await list(referrer, { limit: '20', ...(cursor ? { cursor } : {}) });
      expect(answer.status).toBe(200);
      pageSizes.push(answer.body.data.notification.length);
      seen.push(...answer.body.data.notification.map((n: { id: string }) => n.id));
      cursor = answer.body.data.next_cursor ?? undefined;
    } while (cursor);
    expect(pageSizes).toEqual([20, 20, 5]);
    expect(new Set(seen).size).toBe(45);
    const answer = await list(referrer);
    expect(answer.body.data.referral_count).toBe(45);
  }, 120_000);

  it('keeps referral_count exact under 20 concurrent sign-ups with one code', async () => {
    const referrer = await signUp(service, company);
    await referMany(referrer, 20, 20);
    const answer = await list(referrer, { limit: '100' });
    expect(answer.body.data.referral_count).toBe(20);
    expect(answer.body.data.notification).toHaveLength(20);
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: userKey(company.company_id, referrer.userId) }),
    );
    expect(Item!.referral_count).toBe(20);
  }, 120_000);

  it('pages one by one with limit=1', async () => {
    const referrer = await signUp(service, company);
    await referMany(referrer, 2);
    const first = await list(referrer, { limit: '1' });
    expect(first.body.data.notification).toHaveLength(1);
    const second = await list(referrer, { limit: '1', cursor: first.body.data.next_cursor });
    expect(second.body.data.notification).toHaveLength(1);
    expect(second.body.data.next_cursor).toBeNull();
    expect(second.body.data.notification[0].id).not.toBe(first.body.data.notification[0].id);
  });
});

describe('paging input', () => {
  it.each(['0', '101', '-1', 'ten', '1.5', '1e2'])('refuses limit=%j with 400, code 1', async (limit) => {
    const owner = await signUp(service, company);
    const answer = await list(owner, { limit });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors[0].field).toBe('limit');
  });

  it('treats an empty limit as absent', async () => {
    const owner = await signUp(service, company);
    expect((await list(owner, { limit: '' })).status).toBe(200);
  });

  it('refuses a tampered, foreign or garbage cursor with 400, code 1', async () => {
    const referrer = await signUp(service, company);
    await referMany(referrer, 2);
    const other = await signUp(service, company);
    const { next_cursor: cursor } = (await list(referrer, { limit: '1' })).body.data;
    const [key, signature] = cursor.split('.');
    const otherKey = Buffer.from(Buffer.from(key, 'base64url').toString().replace(/#(\d)/, '#9')).toString('base64url');
    for (const bad of [`${otherKey}.${signature}`, `${key}.${signature.slice(0, -2)}AA`, 'garbage', '..', `${key}`, 'é'.repeat(40)]) {
      const answer = await list(referrer, { limit: '1', cursor: bad });
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors[0].field).toBe('cursor');
    }
    // A cursor of one user's list is no cursor for another's, even for an employee reading both.
    const employee = await newEmployee(service, company);
    expectFailure(await list(employee, { user_id: other.userId, cursor }), 400, 1);
    expect((await list(employee, { user_id: referrer.userId, limit: '1', cursor })).status).toBe(200);
  });
});

describe('access', () => {
  it('needs a token: 401, code 4', async () => {
    expectFailure(await list(undefined), 401, 4);
    expectFailure(await list({ userId: '', referralCode: '', authorization: 'Token nonsense-token-value-123', registration: {} }), 401, 4);
  });

  it('reads user_id from the query string, or from a JSON body as the seed sends it', async () => {
    const owner = await signUp(service, company);
    expect((await list(owner, { user_id: owner.userId })).status).toBe(200);
    expect((await list(owner, {}, { body: { user_id: owner.userId.toUpperCase() } })).status).toBe(200);
  });

  it("refuses a customer reading another user's list with 403, code 5", async () => {
    const owner = await signUp(service, company);
    const nosy = await signUp(service, company);
    expectFailure(await list(nosy, { user_id: owner.userId }), 403, 5);
    expectFailure(await list(nosy, {}, { body: { user_id: owner.userId } }), 403, 5);
    expectFailure(await list(nosy, { user_id: '0'.repeat(32) }), 403, 5);
  });

  it("lets an employee of the company read any user's list, and answers an unknown user with 404, code 6", async () => {
    const owner = await signUp(service, company);
    await signUp(service, company, { referral_code: owner.referralCode });
    const employee = await newEmployee(service, company);
    const answer = await list(employee, { user_id: owner.userId });
    expect(answer.status).toBe(200);
    expect(answer.body.data.referral_count).toBe(1);
    expect(answer.body.data.notification[0].user_id).toBe(owner.userId);
    expectFailure(await list(employee, { user_id: 'f'.repeat(32) }), 404, 6);
  });

  it("refuses another company's token with 401, and lets no employee read another company's users", async () => {
    const other = await newCompany(service);
    const outsider = await signUp(service, other);
    const owner = await signUp(service, company);
    expectFailure(await list(outsider), 401, 4);
    const foreignEmployee = await newEmployee(service, other);
    expectFailure(await list(foreignEmployee, { user_id: owner.userId }, { companyId: other.company_id }), 404, 6);
  });

  it('validates user_id', async () => {
    const owner = await signUp(service, company);
    const answer = await list(owner, { user_id: 'not-a-user' });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors[0].field).toBe('user_id');
  });
});
