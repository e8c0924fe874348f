// The referral count off the referrer's item (lib/registration/user-register.ts, lib/store/referral-store.ts):
// each referred sign-up adds one to a random shard in its transaction, and the list sums the shards
// in the Query that reads the user. Exact under concurrency, with the same DynamoDB requests as before.
// (The 20 sign-ups at once tests/referrals once ran proved less than these 40 on 3 shards.)
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { REFERRAL_COUNT_PREFIX, USER_SORT_KEY, userKey } from '../../lib/store/keys.js';
import { type Account, invoke, newCompany, signUp, testService } from '../helpers.js';

// Few shards, so concurrent sign-ups also meet on one and their transactions conflict and retry; a
// warm company cache, as docs/performance.md counts requests.
const service = testService({ REFERRAL_COUNT_SHARDS: '3', COMPANY_CACHE_SECONDS: '3600' });

/** The DynamoDB operations of the service, each with the keys it names, while recording. */
const requests: { operation: string; body: string }[] = [];
let recording = false;
service.app.table.client.middlewareStack.add(
  (next) => async (args) => {
    const request = args.request as { headers: Record<string, string>; body: string };
    if (recording) requests.push({ operation: request.headers['x-amz-target']?.split('.')[1] ?? '', body: String(request.body) });
    return next(args);
  },
  { step: 'finalizeRequest', name: 'countRequests' },
);

async function recorded<Result>(work: () => Promise<Result>): Promise<{ result: Result; operations: string[]; bodies: string[] }> {
  requests.length = 0;
  recording = true;
  try {
    const result = await work();
    return { result, operations: requests.map((request) => request.operation), bodies: requests.map((request) => request.body) };
  } finally {
    recording = false;
  }
}

const list = (company: Company, account: Account) =>
  invoke(service.handlers.referralProgram, {
    method: 'GET',
    path: '/wallet/v3/reward_promotion/referral_program',
    headers: { CompanyID: company.company_id, Authorization: account.authorization },
    query: { limit: '100' },
  });

describe('a referrer signed up with by many at once', () => {
  it('counts 40 concurrent sign-ups exactly, never writing the referrer’s own item', async () => {
    const company = await newCompany(service);
    const referrer = await signUp(service, company);
    const referrerItem = JSON.stringify({ pk: { S: userKey(company.company_id, referrer.userId).pk }, sk: { S: USER_SORT_KEY } });

    const { result: referred, bodies } = await recorded(() =>
      Promise.all(Array.from({ length: 40 }, () => signUp(service, company, { referral_code: referrer.referralCode }))),
    );
    expect(referred).toHaveLength(40);
    expect(bodies.filter((body) => body.includes(referrerItem.slice(1, -1)))).toEqual([]);
    // Counted in shards beside the referrer's item, spread over more than one.
    const { Items: shards = [] } = await service.app.table.client.send(
      new QueryCommand({
        TableName: service.app.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :shards)',
        ExpressionAttributeValues: { ':pk': userKey(company.company_id, referrer.userId).pk, ':shards': REFERRAL_COUNT_PREFIX },
      }),
    );
    expect(shards.reduce((sum, shard) => sum + shard.referral_count, 0)).toBe(40);
    expect(shards.length).toBeGreaterThan(1);

    const { result: answer, operations } = await recorded(() => list(company, referrer));
    expect(answer.status).toBe(200);
    expect(answer.body.data.referral_count).toBe(40);
    expect(answer.body.data.notification).toHaveLength(40);
    // docs/performance.md: the session, then the user with the count shards | the notifications.
    expect(operations.sort()).toEqual(['GetItem', 'Query', 'Query']);
  }, 180_000);

  it('a referred sign-up is still two requests: the code, then one transaction', async () => {
    const company = await newCompany(service);
    const referrer = await signUp(service, company);
    const { operations } = await recorded(() => signUp(service, company, { referral_code: referrer.referralCode }));
    expect(operations).toEqual(['GetItem', 'TransactWriteItems']);
  });
});
