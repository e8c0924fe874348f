// Idempotency-Key (contract 3.10): the same key and request replay the first outcome with no
// second effect; another request with the key is 409 code 20; a first request still at work makes
// the next 409 code 20 with Retry-After; stored answers hold no token or proof in plain text.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_REPLAY_SECONDS, IDEMPOTENCY_WINDOW_SECONDS } from '../../lib/call.js';
import type { Company } from '../../lib/companies/companies.js';
import { PRODUCTION_HASH_COST } from '../../lib/secrets/hashing.js';
import { claimIdempotencyRecord, releaseIdempotencyRecord } from '../../lib/store/idempotency-store.js';
import { companyPrefix, idempotencyRecordKey, phoneClaimKey } from '../../lib/store/keys.js';
import { scanItems } from '../harness/table-snapshot.js';
import {
  type Answer,
  codeIn,
  expectFailure,
  type InProcessService,
  invoke,
  newCompany,
  outboxMessages,
  randomPhoneNumber,
  sampleRegistration,
  signUp,
  testService,
} from '../helpers.js';

const service = testService();
const { table } = service.app;
const REGISTER = '/wallet/v3/auth/user_register';
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

function register(
  body: Record<string, unknown>,
  key: string | undefined,
  extra: Record<string, string> = {},
  by: InProcessService = service,
): Promise<Answer> {
  const headers = { CompanyID: company.company_id, ...(key === undefined ? {} : { 'Idempotency-Key': key }), ...extra };
  return invoke(by.handlers.userRegister, { path: REGISTER, headers, body });
}

/** Every idempotency record of the test's company, as stored. */
async function storedRecords(): Promise<Record<string, unknown>[]> {
  // Paged: one Scan page of the run's shared table (1 MB) may not reach the company's items.
  const items = await scanItems(table.client, table.name, company.company_id);
  return items.filter((item) => item.pk.startsWith(`${companyPrefix(company.company_id)}#IDEMPOTENCY#`));
}

describe('the same key with the same request', () => {
  it('gets the first registration again, with no second user', async () => {
    const body = sampleRegistration();
    const key = `reg-${randomPhoneNumber()}`;
    const first = await register(body, key);
    expect(first.status).toBe(200);
    const again = await register(body, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Without the key the same body is a second registration: refused, so the first was the only one.
    expectFailure(await register(body, undefined), 409, 7);
    const claim = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': phoneClaimKey(company.company_id, `+1${body.phone_number}`, 2).pk },
      }),
    );
    expect(claim.Items?.map((item) => item.user_id)).toEqual([first.body.data.user_id]);
  });

  it('replays a refusal too: the first outcome is the outcome', async () => {
    const body = sampleRegistration({ referral_code: 'NOSUCHCODE' });
    const key = `bad-${randomPhoneNumber()}`;
    const first = await register(body, key);
    expectFailure(first, 400, 8);
    const again = await register(body, key);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('sends no second SMS', async () => {
    const phone = randomPhoneNumber();
    const send = () =>
      invoke(service.handlers.loginPhone, {
        path: '/wallet/v3/auth/login_phone',
        headers: { CompanyID: company.company_id, 'Idempotency-Key': `send-${phone}` },
        body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
      });
    const first = await send();
    expect(first.status).toBe(200);
    // Without the key, a second send within the interval would be 429.
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)).toHaveLength(1);
  });

  it('is another request under another token or company', async () => {
    const caller = await signUp(service, company);
    const body = sampleRegistration();
    const key = `scoped-${randomPhoneNumber()}`;
    expect((await register(body, key)).status).toBe(200);
    // The same key and body with a token: not the anonymous caller's record, so it runs (and finds the phone taken).
    expectFailure(await register(body, key, { Authorization: caller.authorization }), 409, 7);
  });
});

describe('the same key with another request', () => {
  it('is refused with 409, code 20', async () => {
    const key = `other-${randomPhoneNumber()}`;
    expect((await register(sampleRegistration(), key)).status).toBe(200);
    const other = await register(sampleRegistration(), key);
    expectFailure(other, 409, 20);
    expect(other.headers['retry-after']).toBeUndefined();
  });

  it('on another route is refused too', async () => {
    const key = `route-${randomPhoneNumber()}`;
    const body = sampleRegistration();
    expect((await register(body, key)).status).toBe(200);
    const elsewhere = await invoke(service.handlers.loginPhone, {
      path: '/wallet/v3/auth/login_phone',
      headers: { CompanyID: company.company_id, 'Idempotency-Key': key },
      body,
    });
    expectFailure(elsewhere, 409, 20);
  });
});

describe('while the first is still at work', () => {
  it('the next is refused with 409, code 20 and Retry-After; once done it replays', async () => {
    const body = sampleRegistration();
    const key = `busy-${randomPhoneNumber()}`;
    // Registration hashes a password and two PINs at production's cost after taking the record: the others arrive meanwhile.
    const slow = testService({}, { hashCost: PRODUCTION_HASH_COST });
    const answers = await Promise.all([register(body, key, {}, slow), register(body, key, {}, slow), register(body, key, {}, slow)]);
    const done = answers.filter((answer) => answer.status === 200);
    const busy = answers.filter((answer) => answer.status === 409);
    expect(done).toHaveLength(1);
    expect(busy).toHaveLength(2);
    for (const answer of busy) {
      expectFailure(answer, 409, 20);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const later = await register(body, key);
    expect(later.body).toEqual(done[0]!.body);
  });

  it('holds the key only until its deadline: a crashed first request does not block it', async () => {
    const recordKey = idempotencyRecordKey(company.company_id, `crash-${randomPhoneNumber()}`);
    const now = Date.now();
    const first = { fingerprint: 'f', owner: 'first', lockedUntil: now + 10_000, expiresAt: Math.floor(now / 1000) + 86_400, nowMs: now };
    expect(await claimIdempotencyRecord(table, recordKey, first)).toEqual({ taken: true });
    // A retry of the first's own write (its answer lost) finds itself.
    expect(await claimIdempotencyRecord(table, recordKey, first)).toEqual({ taken: true });
    const second = { ...first, owner: 'second', lockedUntil: now + 25_000 };
    const refused = await claimIdempotencyRecord(table, recordKey, { ...second, nowMs: now + 5_000 });
    expect(refused).toMatchObject({ taken: false, seen: { state: 'in_progress', held_by: 'first' } });
    // Past the deadline only the same request may take it over: another body could spend what the first did.
    const other = await claimIdempotencyRecord(table, recordKey, { ...second, fingerprint: 'g', nowMs: now + 10_001 });
    expect(other).toMatchObject({ taken: false, seen: { fingerprint: 'f' } });
    expect(await claimIdempotencyRecord(table, recordKey, { ...second, nowMs: now + 10_001 })).toEqual({ taken: true });
  });

  it('answers a retry on a session its first run ended 401 once that run is past its deadline with no answer kept, not 409 all day', async () => {
    const account = await signUp(service, company);
    const key = `ended-${randomPhoneNumber()}`;
    const headers = { CompanyID: company.company_id, Authorization: account.authorization, 'Idempotency-Key': key };
    const logout = () => invoke(service.handlers.logout, { path: '/wallet/v3/auth/logout', headers, body: {} });
    // The logout ends its own session, then its answer is not kept: its record stays at work.
    const client = table.client;
    const send = client.send.bind(client);
    client.send = (async (command: { input?: { UpdateExpression?: string } }) => {
      if (command.input?.UpdateExpression?.startsWith('SET #state = :done')) throw new Error('the answer was not stored');
      return send(command as never);
    }) as typeof client.send;
    let first: Answer;
    try {
      first = await logout();
    } finally {
      client.send = send;
    }
    expect(first.status).toBe(200);
    // Within its deadline the first may still be at work: 409 with Retry-After.
    const atWork = await logout();
    expectFailure(atWork, 409, 20);
    expect(Number(atWork.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Past it, the first is over and its session is gone: the session's 401, as with no record.
    const { functionTimeoutMs, dynamodbTimeoutMs } = service.app.config;
    service.clock.advance(Math.ceil((functionTimeoutMs + dynamodbTimeoutMs) / 1000) + 1);
    try {
      expectFailure(await logout(), 401, 4);
    } finally {
      service.clock.reset();
    }
  });

  it('binds a key released after a 5xx to its body: the same request runs again, another is refused', async () => {
    const recordKey = idempotencyRecordKey(company.company_id, `released-${randomPhoneNumber()}`);
    const now = Date.now();
    const first = { fingerprint: 'f', owner: 'first', lockedUntil: now + 10_000, expiresAt: Math.floor(now / 1000) + 86_400, nowMs: now };
    expect(await claimIdempotencyRecord(table, recordKey, first)).toEqual({ taken: true });
    await releaseIdempotencyRecord(table, recordKey, 'first');
    const retry = { ...first, owner: 'retry', nowMs: now + 1_000 };
    expect(await claimIdempotencyRecord(table, recordKey, { ...retry, fingerprint: 'g' })).toMatchObject({
      taken: false,
      seen: { state: 'released', fingerprint: 'f' },
    });
    expect(await claimIdempotencyRecord(table, recordKey, retry)).toEqual({ taken: true });
  });
});

describe('an answer carrying a credential, to a caller without a token', () => {
  it(`is replayed for ${CREDENTIAL_REPLAY_SECONDS} s, then refused with 409 code 20; an answer without one replays all day`, async () => {
    const body = sampleRegistration();
    const key = `credential-${randomPhoneNumber()}`;
    const first = await register(body, key);
    expect(first.status).toBe(200);
    const target = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 2 };
    const headers = { CompanyID: company.company_id, 'Idempotency-Key': `code-${key}` };
    const sendCode = () => invoke(service.handlers.loginPhone, { path: '/l', headers, body: target });
    const sent = await sendCode();
    expect(sent.status).toBe(200);
    service.clock.freeze(Math.floor(service.clock.now() / 1000));
    try {
      service.clock.advance(CREDENTIAL_REPLAY_SECONDS - 5);
      expect((await register(body, key)).body).toEqual(first.body);
      service.clock.advance(10);
      expectFailure(await register(body, key), 409, 20);
      service.clock.advance(IDEMPOTENCY_WINDOW_SECONDS - CREDENTIAL_REPLAY_SECONDS - 60);
      expect((await sendCode()).headers['idempotent-replayed']).toBe('true');
    } finally {
      service.clock.reset();
    }
  });
});

describe('a stored answer', () => {
  it('holds no token in plain text, and opens only with its key', async () => {
    const body = sampleRegistration();
    const key = `sealed-${randomPhoneNumber()}`;
    const first = await register(body, key);
    const token: string = first.body.data.token.token;
    const records = await storedRecords();
    expect(records.length).toBeGreaterThan(0);
    const text = JSON.stringify(records);
    expect(text).not.toContain(token);
    expect(text).not.toContain(Buffer.from(token).toString('base64').slice(0, 20));
    expect(text).not.toContain(key);
  });

  it('of a phone proof holds no proof in plain text', async () => {
    const phone = randomPhoneNumber();
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    const headers = { CompanyID: company.company_id };
    await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target });
    const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`).at(-1));
    const verify = () =>
      invoke(service.handlers.verifyOtp, {
        path: '/v',
        headers: { ...headers, 'Idempotency-Key': `proof-${phone}` },
        body: { ...target, otp: code },
      });
    const first = await verify();
    expect(first.status).toBe(200);
    const proof: string = first.body.data.verification_token;
    // The code is used up: only the replay can answer 200 again.
    expect((await verify()).body).toEqual(first.body);
    expect(JSON.stringify(await storedRecords())).not.toContain(proof);
  });
});

describe('the header', () => {
  it.each(['', 'a'.repeat(256), 'has space', 'caf\u00e9'])('must be 1-255 visible ASCII characters, not %j', async (key) => {
    const answer = await register(sampleRegistration(), key);
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
  });

  it('of 255 characters is taken', async () => {
    expect((await register(sampleRegistration(), `${randomPhoneNumber()}${'k'.repeat(245)}`)).status).toBe(200);
  });
});
