import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import type { SecretSource } from '../../lib/secrets/server-keys.js';
import {
  type Account,
  type Answer,
  expectFailure,
  invoke,
  newCompany,
  newEmployee,
  SEED_NOTIFICATION_FIELDS,
  signUp,
  testService,
} from '../helpers.js';
import { versionedSecret } from '../secrets/versioned-secret.js';

// Two versions of the server secret, the newer one current: a cursor whose version is changed
// to the older one still finds a key, so its signature is what refuses it.
const twoSecretVersions: SecretSource = {
  current: async () => ({ version: 2, secret: Buffer.alloc(32, 2) }),
  version: async (version) => (version === 1 || version === 2 ? { version, secret: Buffer.alloc(32, version) } : undefined),
};
const service = testService({}, { secretSource: twoSecretVersions });
const referralProgram = service.handlers.referralProgram;

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
      expect(Object.keys(notification).sort()).toEqual(SEED_NOTIFICATION_FIELDS);
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

  it('refuses a cursor with its version, position or signature changed: the signature check refuses each (400, code 1)', async () => {
    const referrer = await signUp(service, company);
    await referMany(referrer, 3);
    const cursor: string = (await list(referrer, { limit: '1' })).body.data.next_cursor;
    // The position after the second notification: a real position of this list, signed for it.
    const later: string = (await list(referrer, { limit: '2' })).body.data.next_cursor;
    const [version, position, signature] = cursor.split('.') as [string, string, string];
    const laterPosition = later.split('.')[1]!;
    expect([version, laterPosition === position]).toEqual(['2', false]);
    const otherFirst = (text: string) => `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
    const tampered = {
      version: `1.${position}.${signature}`,
      position: `${version}.${laterPosition}.${signature}`,
      signature: `${version}.${position}.${otherFirst(signature)}`,
    };
    const answers: Record<string, unknown> = {};
    for (const [part, bad] of Object.entries(tampered)) {
      const answer = await list(referrer, { limit: '1', cursor: bad });
      answers[part] = [answer.status, answer.body.error, answer.body.data.errors?.map((error: { field: string }) => error.field)];
    }
    const refused = [400, [1], ['cursor']];
    expect(answers).toEqual({ version: refused, position: refused, signature: refused });
    expect((await list(referrer, { limit: '1', cursor })).status).toBe(200);
  });

  it('refuses a foreign or garbage cursor with 400, code 1', async () => {
    const referrer = await signUp(service, company);
    await referMany(referrer, 2);
    const other = await signUp(service, company);
    const { next_cursor: cursor } = (await list(referrer, { limit: '1' })).body.data;
    const [, position] = cursor.split('.');
    for (const bad of ['garbage', '..', position, `2.${position}`, `0.${position}.x`, `${cursor}.x`, 'é'.repeat(40)]) {
      const answer = await list(referrer, { limit: '1', cursor: bad });
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors[0].field).toBe('cursor');
    }
    // A cursor of one user's list is no cursor for another's, even for an employee reading both.
    const employee = await newEmployee(service, company);
    expectFailure(await list(employee, { user_id: other.userId, cursor }), 400, 1);
    expect((await list(employee, { user_id: referrer.userId, limit: '1', cursor })).status).toBe(200);
  });

  it('refuses a cursor naming a key version the secret does not have with 400, code 1, without reading the secret', async () => {
    const secret = versionedSecret(1);
    const counted = testService({}, { secretSource: secret });
    const referrer = await signUp(counted, company);
    await Promise.all([1, 2].map(() => signUp(counted, company, { referral_code: referrer.referralCode })));
    const page = (cursor?: string) =>
      invoke(counted.handlers.referralProgram, {
        method: 'GET',
        path: PATH,
        headers: { CompanyID: company.company_id, Authorization: referrer.authorization },
        query: { limit: '1', ...(cursor ? { cursor } : {}) },
      });
    const cursor: string = (await page()).body.data.next_cursor;
    expect(cursor).toMatch(/^1\./);
    secret.reads.length = 0;
    for (let version = 2; version <= 21; version++) {
      const answer = await page(cursor.replace(/^1\./, `${version}.`));
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors[0].field).toBe('cursor');
    }
    expect(secret.reads).toEqual([]);
    expect((await page(cursor)).status).toBe(200);
  });
});

describe('access', () => {
  it('needs a token: 401, code 4', async () => {
    expectFailure(await list(undefined), 401, 4);
    expectFailure(
      await list({ userId: '', referralCode: '', authorization: 'Token nonsense-token-value-123', refreshToken: '', registration: {} }),
      401,
      4,
    );
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
