// A burst of referred registrations as a client meets it (issue 23 step 5, contract 3.10): many
// registrations at once naming one referral code, each with its own Idempotency-Key, against
// serverless-offline on this machine's cores. The burst is more than the cores can register
// inside the deadline, so many answer 503 code 16: every answer must be a 200 with its user or
// that 503 in the envelope, never serverless-offline's own 200 with a stackTrace, never a 500.
// Then every 503 is retried with its key and body until it answers 200 with its user (a 503
// whose write went on comes back with that user and a new session), and the referrer's count
// is exactly the users stored, with no phone twice.
//
// 60 at once (the issue asked for 100): each costs about 0.3 s of scrypt and, at first, a cold
// serverless-offline worker of about as much again, so on 2 cores the burst is ~30 s of CPU and
// many answer 503 at the 10 s deadline; 100 only made more of the same 503s. The retries go 6 at
// a time, well inside the deadline.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { userKey } from '../../lib/store/keys.js';
import { referralCountIn } from '../../lib/store/referral-store.js';
import { scanItems } from '../harness/table-snapshot.js';
import { sampleRegistration, signUp } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();
const REGISTER = '/wallet/v3/auth/user_register';
const REFERRALS = '/wallet/v3/reward_promotion/referral_program';
const BURST = 60;
/** Retries of one registration before the test gives up on it. */
const ROUNDS = 12;
/** Registrations retried at once. */
const RETRIED_AT_ONCE = 6;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', CompanyID: service.company.company_id, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const answer = { status: response.status, headers: response.headers, body: JSON.parse(text) };
  // The envelope with a documented status and code: serverless-offline's {"errorMessage", "stackTrace"} fails here.
  expectDocumented({ method, path, ...answer });
  expect(answer.body).not.toHaveProperty('stackTrace');
  return answer;
}

const register = (body: Record<string, unknown>, key: string) => call('POST', REGISTER, { 'Idempotency-Key': key }, body);

/** Not a definite outcome yet: the deadline (503 code 16) or the first request with the key still at work (409 code 20). */
const pending = (answer: Answer) => answer.status === 503 || (answer.status === 409 && answer.body.error?.[0] === 20);

/** Sends the same registration with the same key until it has a definite outcome, backing off, at most ROUNDS times. */
async function retried(body: Record<string, unknown>, key: string): Promise<Answer> {
  let answer = await register(body, key);
  for (let round = 1; round < ROUNDS && pending(answer); round++) {
    const retryAfterMs = Number(answer.headers.get('retry-after') ?? 0) * 1000;
    await sleep(Math.max(retryAfterMs, Math.min(500 * 2 ** round, 8000)) * (0.5 + Math.random() / 2));
    answer = await register(body, key);
  }
  return answer;
}

describe(`${BURST} registrations at once naming one referral code, over HTTP`, () => {
  it('answer 200 or 503 code 16 in the envelope; retried with their keys, each registers once and the count is exact', async () => {
    const { local, company } = { local: service.server.local, company: service.company };
    const referrer = await signUp(local, company, { referral_code: undefined, parent_user_id: undefined });
    const sent = Array.from({ length: BURST }, () => ({
      key: randomUUID(),
      body: sampleRegistration({ referral_code: referrer.referralCode, parent_user_id: undefined }),
    }));

    const first = await Promise.all(sent.map(({ body, key }) => register(body, key)));
    for (const answer of first) {
      expect([200, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.body.error).toEqual([16]);
    }
    const unavailable = first.flatMap((answer, index) => (answer.status === 503 ? [index] : []));
    console.info(`registration burst: ${BURST - unavailable.length} answered 200, ${unavailable.length} answered 503 code 16`);

    // The 503s again, a few at a time, each with its own key and body.
    const final = [...first];
    const queue = [...unavailable];
    await Promise.all(
      Array.from({ length: RETRIED_AT_ONCE }, async () => {
        for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
          const { body, key } = sent[index]!;
          final[index] = await retried(body, key);
        }
      }),
    );
    for (const answer of final) {
      expect(answer.status).toBe(200);
      expect(answer.body.data.token.token).toEqual(expect.any(String));
    }
    const userIds = final.map((answer) => answer.body.data.user_id as string);
    expect(new Set(userIds).size).toBe(BURST);

    const items = await scanItems(local.app.table.client, local.app.table.name, company.company_id);
    const users = items.filter((item) => item.sk === 'PROFILE' && item.user_id !== referrer.userId);
    // Every registration answered is stored, once, and nothing else is.
    expect(users.map((user) => user.user_id).sort()).toEqual([...userIds].sort());
    expect(new Set(users.map((user) => user.phone_e164)).size).toBe(users.length);
    // The count as stored (summed over its shards) and as the referral list gives it.
    const referrerItems = items.filter((item) => item.pk === userKey(company.company_id, referrer.userId).pk);
    expect(referralCountIn(referrerItems)).toBe(users.length);
    const list = await call('GET', REFERRALS, { Authorization: referrer.authorization });
    expect(list.status).toBe(200);
    expect(list.body.data.referral_count).toBe(users.length);
  }, 240_000);
});
