// Faults at the SDK's network boundary: DynamoDB unreachable, stuck or throttling, and SNS
// failing or stuck. Every answer must be the 503 envelope (code 16, Retry-After: a dependency
// is down, try again), arrive well inside the Lambda timeout (10 s), and leave no partial state
// in DynamoDB Local (read past the proxy).
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import {
  companySendLimitKey,
  emailClaimKey,
  otpKey,
  phoneClaimKey,
  phoneFailuresKey,
  phoneSendLimitKey,
  SESSION_PREFIX,
  userKey,
} from '../../lib/store/keys.js';
import { challengeTake, getChallenge, storeChallenge } from '../../lib/store/passkey-store.js';
import { phoneProofConsume, putPhoneProof } from '../../lib/store/proof-store.js';
import {
  countInWindow,
  countSendInNewWindow,
  countSendInWindow,
  givePhoneTryBack,
  takePhoneTry,
  uncountInWindow,
  uncountPhoneSend,
} from '../../lib/store/send-limit-store.js';
import { querySessions } from '../../lib/store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../../lib/store/transactions.js';
import { type Device, PINS, pinLogin, signUpWithDevice } from '../devices/device-helpers.js';
import { newDeviceKeyPair, signedLoginPin, signedStepUp } from '../harness/device-keys.js';
import { createOwnTable, localClient } from '../harness/dynamodb-local.js';
import { type DynamoRequest, type FaultMode, type FaultProxy, faultWhen, startFaultProxy } from '../harness/fault-proxy.js';
import { type FakeSns, startFakeSns } from '../harness/sns-fake.js';
import { diffSnapshots, identityProblems, type StoredItem, scanItems, snapshotOf } from '../harness/table-snapshot.js';
import {
  type Account,
  type Answer,
  codeIn,
  companyHourSent,
  type EventInput,
  expectUnavailable,
  type InProcessService,
  invoke,
  newCompany,
  nextHourStart,
  randomPhoneNumber,
  sampleRegistration,
  signUp,
  testService,
} from '../helpers.js';

// The service reaches DynamoDB through the fault proxy and sends SMS through the loopback SNS,
// in a table of its own. DYNAMODB_TIMEOUT_MS stays at its default on purpose: the default is
// what must fail fast.
let dynamoProxy: FaultProxy;
let sns: FakeSns;
let table: string;
let service: InProcessService;
/** DynamoDB Local itself, past the proxy: what is really stored. */
let direct: DynamoDBDocumentClient;
let loginPhone: LambdaHttpHandler;
let referralProgram: LambdaHttpHandler;
let register: LambdaHttpHandler;
let verifyOtp: LambdaHttpHandler;

/**
 * A whole request under a fault: below the 10 s Lambda timeout with room to spare, and loose
 * enough for a loaded 2-core machine (hashing alone can take seconds there). Before the fix, a
 * stuck table held a request for 5 minutes; with 3 s attempts it would take over 9 s.
 */
const FAIL_FAST_MS = 7_000;
/** From the first failing DynamoDB call to the answer: the call's budget (lib/aws/clients.ts dynamodbCallBudgetMs, 2.45 s) and more. */
const GIVE_UP_MS = 5_000;
/** A stuck SNS costs two attempts of SMS_TIMEOUT_MS (2 s by default) on top of the table's calls. */
const SMS_FAIL_FAST_MS = 8_000;

let company: Company;
let customer: Account;

beforeAll(async () => {
  dynamoProxy = await startFaultProxy(inject('dynamodbEndpoint'));
  sns = await startFakeSns();
  table = await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-faults');
  service = testService(
    { DYNAMODB_ENDPOINT: dynamoProxy.endpoint, DYNAMODB_TIMEOUT_MS: '', SMS_SENDER: 'sns', SNS_ENDPOINT: sns.endpoint },
    { tableName: table },
  );
  direct = DynamoDBDocumentClient.from(localClient(inject('dynamodbEndpoint')));
  ({ loginPhone, referralProgram, userRegister: register, verifyOtp } = service.handlers);
  company = await newCompany(service);
  customer = await signUp(service, company);
});

afterEach(async () => {
  dynamoProxy.reset();
  await dynamoProxy.setReachable(true);
  sns.failWith = undefined;
  sns.hang = false;
  service.clock.reset();
});

afterAll(async () => {
  await Promise.all([dynamoProxy?.close(), sns?.close()]);
  direct?.destroy();
});

interface TimedAnswer extends Answer {
  ms: number;
}

async function timed(handler: LambdaHttpHandler, input: EventInput): Promise<TimedAnswer> {
  const started = performance.now();
  const answer = await invoke(handler, input);
  return { ...answer, ms: performance.now() - started };
}

function expectFastUnavailable(answer: TimedAnswer, what: string, withinMs = FAIL_FAST_MS): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
  expectUnavailable(answer);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(answer.ms, `${what} took ${Math.round(answer.ms)} ms`).toBeLessThan(withinMs);
}

const headers = (extra: Record<string, string> = {}, companyId = company.company_id) => ({ CompanyID: companyId, ...extra });
const customerPhone = () => `+1${String(customer.registration.phone_number)}`;
const loginTarget = () => ({ dial_code: '+1', phone_number: String(customer.registration.phone_number), user_type: 2, otp_type: 1 });

/** One request to each endpoint; each needs DynamoDB from its first step (the company lookup), so no hashing comes first. */
function oneCallPerEndpoint(companyId = company.company_id) {
  const verification = { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 2 };
  return {
    user_register: () => timed(register, { path: '/r', headers: headers({}, companyId), body: sampleRegistration() }),
    login_phone: () => timed(loginPhone, { path: '/l', headers: headers({}, companyId), body: verification }),
    verify_otp: () => timed(verifyOtp, { path: '/v', headers: headers({}, companyId), body: { ...loginTarget(), otp: '123456' } }),
    referral_program: () =>
      timed(referralProgram, { method: 'GET', path: '/p', headers: headers({ Authorization: customer.authorization }, companyId) }),
  };
}

const companyItems = (companyId = company.company_id) => scanItems(direct, table, companyId);

async function getItem(key: { pk: string; sk: string }): Promise<StoredItem | undefined> {
  return (await scanItems(direct, table)).find((item) => item.pk === key.pk && item.sk === key.sk);
}

/** Resolves `seen` with the message when the service logs it as a warning, until restored. */
function logged(target: InProcessService, message: string): { seen: Promise<string>; restore: () => void } {
  const logger = target.app.logger;
  const warn = logger.warn;
  const seen = new Promise<string>((resolve) => {
    logger.warn = (input, ...extra) => {
      if (input === message) resolve(message);
      warn.call(logger, input, ...extra);
    };
  });
  const restore = () => {
    logger.warn = warn;
  };
  return { seen, restore };
}

/**
 * Runs one call per endpoint at once under a fault, and checks answers, speed and stored data.
 * Returns what reached the proxy.
 */
async function expectEveryEndpointFailsCleanly(): Promise<DynamoRequest[]> {
  const before = snapshotOf(await companyItems());
  const calls = oneCallPerEndpoint();
  const answers = await Promise.all(Object.values(calls).map((call) => call()));
  for (const [index, endpoint] of Object.keys(calls).entries()) expectFastUnavailable(answers[index]!, endpoint);
  const seen = dynamoProxy.seen;
  dynamoProxy.reset();
  const after = snapshotOf(await companyItems());
  expect(diffSnapshots(before, after)).toEqual({ added: [], removed: [], changed: [] });
  return seen;
}

describe('DynamoDB out of reach', () => {
  it('refusing connections: every endpoint answers the 503 envelope (code 16) within seconds and stores nothing', async () => {
    await dynamoProxy.setReachable(false);
    await expectEveryEndpointFailsCleanly();
  });

  it('cutting connections: every endpoint answers the 503 envelope (code 16) within seconds and stores nothing', async () => {
    dynamoProxy.rule = () => 'reset';
    await expectEveryEndpointFailsCleanly();
  });

  it('stuck (never answering): the client timeout ends every call within seconds, with the 503 envelope (code 16)', async () => {
    dynamoProxy.rule = () => 'hang';
    const seen = await expectEveryEndpointFailsCleanly();
    // Each request's first call (the company lookup) was tried at most 3 times, then given up.
    expect(seen.every((request) => request.operation === 'GetItem' && request.body.includes('"COMPANY"'))).toBe(true);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.length).toBeLessThanOrEqual(4 * 3);
  });

  it('throttling: every endpoint answers the 503 envelope (code 16) within seconds and stores nothing', async () => {
    dynamoProxy.rule = () => 'throttle';
    await expectEveryEndpointFailsCleanly();
  });
});

const onlyFor = (operation: string, bodyPart: string | undefined, mode: FaultMode) =>
  faultWhen((request) => request.operation === operation && (bodyPart === undefined || request.body.includes(bodyPart)), mode);

/**
 * `write` with its first `operation` request whose body has `bodyPart` held (a request stalled on its
 * way) until released, the SDK's retry landing in its place; then `after`; then the held copy lands,
 * after both. Answers what `write` did.
 */
async function withFirstCopyLate<Written>(
  operation: string,
  bodyPart: string,
  write: () => Promise<Written>,
  after: (written: Written) => Promise<void> = async () => {},
): Promise<Written> {
  dynamoProxy.lateMs = Number.POSITIVE_INFINITY;
  let copies = 0;
  dynamoProxy.rule = ({ operation: seen, body }) => (seen === operation && body.includes(bodyPart) && copies++ === 0 ? 'late' : 'pass');
  try {
    const written = await write();
    dynamoProxy.rule = () => 'pass';
    // The held copy and its retry.
    expect(copies).toBe(2);
    await after(written);
    await dynamoProxy.releaseLate();
    return written;
  } finally {
    dynamoProxy.lateMs = 1_500;
  }
}

describe('registration under faults', () => {
  let referrer: Account;
  beforeAll(async () => {
    referrer = await signUp(service, company);
  });

  it.each<FaultMode>(['throttle', 'hang', 'reset'])(
    'a transaction that fails (%s) leaves no user, no claim, no token, no referral credit',
    async (mode) => {
      const before = snapshotOf(await companyItems());
      dynamoProxy.rule = onlyFor('TransactWriteItems', undefined, mode);
      const body = sampleRegistration({ referral_code: referrer.referralCode });
      expectFastUnavailable(await timed(register, { path: '/r', headers: headers(), body }), 'user_register');
      const answeredAt = performance.now();

      // The SDK tries a failing call at most DYNAMODB_MAX_ATTEMPTS times (a stalled one 3 times,
      // within its budget), the transaction loop adds none, and it gives up within seconds of the
      // first failure, whatever the hashing before it took.
      const attempts = dynamoProxy.seen.filter((request) => request.operation === 'TransactWriteItems' && request.mode !== 'pass');
      expect(attempts.length).toBeGreaterThanOrEqual(1);
      expect(attempts.length).toBeLessThanOrEqual(mode === 'hang' ? 3 : service.app.config.dynamodbMaxAttempts);
      expect(answeredAt - attempts[0]!.at).toBeLessThan(GIVE_UP_MS);
      dynamoProxy.reset();
      const items = await companyItems();
      expect(diffSnapshots(before, snapshotOf(items))).toEqual({ added: [], removed: [], changed: [] });
      expect(identityProblems(items, company.company_id)).toEqual([]);
      // And the same body registers once the table is back.
      expect((await invoke(register, { path: '/r', headers: headers(), body })).status).toBe(200);
    },
  );

  it('a transaction whose answer is lost still leaves exactly one complete user', async () => {
    let lost = 0;
    dynamoProxy.rule = (request) => (request.operation === 'TransactWriteItems' && lost++ === 0 ? 'lose-answer' : 'pass');
    const body = sampleRegistration();
    const answer = await timed(register, { path: '/r', headers: headers(), body });
    expect(answer.ms).toBeLessThan(FAIL_FAST_MS);
    // The SDK retries with the same ClientRequestToken, so DynamoDB applies the write once and
    // answers the retry as a success: the client gets its token, not a 409 for its own write.
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const tries = dynamoProxy.seen.filter((request) => request.operation === 'TransactWriteItems');
    expect(tries.map((request) => request.mode)).toEqual(['lose-answer', 'pass']);
    const tokens = tries.map((request) => JSON.parse(request.body).ClientRequestToken as string);
    expect(tokens[0]).toBeTruthy();
    expect(tokens[1]).toBe(tokens[0]);
    dynamoProxy.reset();
    const items = await companyItems();
    expect(identityProblems(items, company.company_id)).toEqual([]);
    const users = items.filter((item) => item.sk === 'PROFILE' && item.phone_e164 === `+1${String(body.phone_number)}`);
    expect(users).toHaveLength(1);
    expect(users[0]!.user_id).toBe(answer.body.data.user_id);
    expect(await getItem(phoneClaimKey(company.company_id, `+1${String(body.phone_number)}`, 2))).toMatchObject({
      user_id: users[0]!.user_id,
    });
    expect(await getItem(emailClaimKey(company.company_id, String(body.email), 2))).toMatchObject({ user_id: users[0]!.user_id });
  });
});

describe('sending a code under faults', () => {
  /** A fresh company and an unregistered number, so every counter starts absent. */
  async function freshTarget() {
    const fresh = await newCompany(service);
    const phone = randomPhoneNumber();
    return { fresh, phone, e164: `+1${phone}`, body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 } };
  }

  async function expectNothingCounted(companyId: string, e164: string): Promise<void> {
    const items = await companyItems(companyId);
    expect(
      items.find((item) => item.pk === phoneSendLimitKey(companyId, e164).pk),
      'phone counter',
    ).toBeUndefined();
    expect(companyHourSent(items, companyId), 'company counter').toBe(0);
    expect(
      items.filter((item) => item.sk === 'OTP'),
      'stored codes',
    ).toEqual([]);
  }

  it('the company count failing gives the phone count back: 503, no SMS, no code, nothing counted', async () => {
    const { fresh, e164, body } = await freshTarget();
    dynamoProxy.rule = onlyFor('UpdateItem', '"HOUR#', 'throttle');
    const published = sns.published.length;
    expectFastUnavailable(await timed(loginPhone, { path: '/l', headers: headers({}, fresh.company_id), body }), 'login_phone');
    dynamoProxy.reset();
    expect(sns.published.length).toBe(published);
    await expectNothingCounted(fresh.company_id, e164);
  });

  it.each([
    ['failing', () => (sns.failWith = 'InternalError')],
    ['stuck', () => (sns.hang = true)],
  ])('SNS %s: 503 within seconds, no code stored, phone and company counts given back', async (_, breakSns) => {
    const { fresh, e164, body } = await freshTarget();
    breakSns();
    const published = sns.published.length;
    const answer = await timed(loginPhone, { path: '/l', headers: headers({}, fresh.company_id), body });
    expectFastUnavailable(answer, 'login_phone', SMS_FAIL_FAST_MS);
    sns.failWith = undefined;
    sns.hang = false;
    expect(sns.published.length).toBe(published);
    await expectNothingCounted(fresh.company_id, e164);
    // Nothing was held against the phone: it can ask again at once.
    expect((await invoke(loginPhone, { path: '/l', headers: headers({}, fresh.company_id), body })).status).toBe(200);
  });

  it('storing the code failing: 503, no SMS (a text leaves only once its code is stored), nothing counted', async () => {
    const { fresh, e164, body } = await freshTarget();
    const published = sns.published.length;
    dynamoProxy.rule = onlyFor('PutItem', '#OTP#', 'throttle');
    expectFastUnavailable(await timed(loginPhone, { path: '/l', headers: headers({}, fresh.company_id), body }), 'login_phone');
    dynamoProxy.reset();
    expect(sns.published.length).toBe(published);
    await expectNothingCounted(fresh.company_id, e164);
  });
});

describe('verifying a code under faults', () => {
  async function liveLoginCode(): Promise<string> {
    const target = loginTarget();
    // A fresh send window: the earlier tests may have sent to this phone.
    await direct.send(new DeleteCommand({ TableName: table, Key: phoneSendLimitKey(company.company_id, customerPhone()) }));
    expect((await invoke(loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
    return codeIn(sns.published.at(-1)?.message);
  }

  it('a consume that fails answers 503 and leaves the code live: the right code works on its next try', async () => {
    const code = await liveLoginCode();
    const key = otpKey(company.company_id, customerPhone(), 2, 1);
    dynamoProxy.rule = onlyFor('UpdateItem', 'SET consumed_by', 'throttle');
    expectFastUnavailable(await timed(verifyOtp, { path: '/v', headers: headers(), body: { ...loginTarget(), otp: code } }), 'verify_otp');
    dynamoProxy.reset();
    // The attempt compared the code, so its try stays spent; the code is not used up.
    expect(await getItem(key)).not.toHaveProperty('consumed_by');
    expect((await getItem(key))!.tries.size).toBe(1);
    const answer = await invoke(verifyOtp, { path: '/v', headers: headers(), body: { ...loginTarget(), otp: code } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.user_id).toBe(customer.userId);
  });

  it('a wrong try whose count fails answers 503 and counts nothing', async () => {
    const code = await liveLoginCode();
    const wrong = code === '000000' ? '000001' : '000000';
    dynamoProxy.rule = onlyFor('UpdateItem', '#OTP#', 'throttle');
    expectFastUnavailable(await timed(verifyOtp, { path: '/v', headers: headers(), body: { ...loginTarget(), otp: wrong } }), 'verify_otp');
    dynamoProxy.reset();
    expect(await getItem(otpKey(company.company_id, customerPhone(), 2, 1))).not.toHaveProperty('tries');
  });
});

describe('a request that runs out of time', () => {
  // DynamoDB slower than any request may take: the SDK would wait 20 s per attempt, the
  // function's timeout is 2 s, so the deadline (2 s less DEADLINE_MARGIN_MS) answers first.
  let slow: InProcessService;
  beforeAll(() => {
    slow = testService(
      { DYNAMODB_ENDPOINT: dynamoProxy.endpoint, DYNAMODB_TIMEOUT_MS: '20000', FUNCTION_TIMEOUT_SECONDS: '2', DEADLINE_MARGIN_MS: '1000' },
      { tableName: table },
    );
  });

  it('answers the 503 envelope (code 16) at its deadline, not when DynamoDB would have given up', async () => {
    dynamoProxy.reset();
    dynamoProxy.rule = () => 'hang';
    const answer = await timed(slow.handlers.referralProgram, {
      method: 'GET',
      path: '/p',
      headers: headers({ Authorization: customer.authorization }),
    });
    expectUnavailable(answer);
    // 2 s less the 1 s margin, counted from the request's arrival: never sooner, however loaded
    // the machine. What answered was the deadline, not DynamoDB: the SDK's first attempt was
    // still waiting (no retry), and it would have given up only at 20 s. The bound sits halfway,
    // far past the deadline, so a stalled machine does not reach it.
    expect(answer.ms).toBeGreaterThan(900);
    expect(dynamoProxy.seen.map((request) => request.operation)).toEqual(['GetItem']);
    expect(answer.ms).toBeLessThan(10_000);
  });
});

describe('a write whose answer is dropped after it was applied', () => {
  /** Drops the answer of the first request that matches, once. */
  const dropOnce = (operation: string, bodyPart: string) => {
    let dropped = 0;
    return (request: { operation: string; body: string }): FaultMode =>
      request.operation === operation && request.body.includes(bodyPart) && dropped++ === 0 ? 'drop-answer' : 'pass';
  };

  it("of the phone's send counter counts the send once and sends it (not 429 for its own count)", async () => {
    const phone = randomPhoneNumber();
    dynamoProxy.rule = dropOnce('UpdateItem', `#SENDS#+1${phone}`);
    const answer = await invoke(loginPhone, {
      path: '/l',
      headers: headers(),
      body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const modes = dynamoProxy.seen.filter((request) => request.body.includes(`#SENDS#+1${phone}`)).map((request) => request.mode);
    expect(modes).toEqual(['drop-answer', 'pass']);
    dynamoProxy.reset();
    expect(await getItem(phoneSendLimitKey(company.company_id, `+1${phone}`))).toMatchObject({ window_count: 1 });
  });

  it("of a second send, given back after its SMS failed, leaves the phone's counters as the first send left them, expiry included", async () => {
    const phone = `+1${randomPhoneNumber()}`;
    const interval = service.app.config.otp.sendIntervalSeconds;
    const first = epochSeconds(service.clock);
    const opened = await countSendInNewWindow(service.app.table, company.company_id, phone, first, interval);
    expect(opened.counted).toBe(true);
    const leftByFirst = await getItem(phoneSendLimitKey(company.company_id, phone));
    dynamoProxy.reset();
    dynamoProxy.rule = dropOnce('UpdateItem', `#SENDS#${phone}`);
    const second = await countSendInWindow(service.app.table, company.company_id, phone, first, first + interval, interval, 5);
    // Counted by the attempt whose answer was dropped: what it replaced is rebuilt from its marks.
    expect(dynamoProxy.seen.filter((request) => request.body.includes(`#SENDS#${phone}`)).map((request) => request.mode)).toEqual([
      'drop-answer',
      'pass',
    ]);
    dynamoProxy.reset();
    if (!second.counted) throw new Error(`the second send was not counted: ${JSON.stringify(second)}`);
    await uncountPhoneSend(service.app.table, company.company_id, phone, second.sendId, second.before);
    // Its marks aside (the send ids and what they replaced), which only a retry reads.
    const counters = (item: Record<string, unknown> | undefined) => {
      const { send_id: _send, previous_sent_at: _previous, ...rest } = item ?? {};
      return rest;
    };
    const restored = counters(await getItem(phoneSendLimitKey(company.company_id, phone)));
    const left = counters(leftByFirst);
    expect(restored).toEqual(left);
  });

  it("of the company's hourly counter counts the send once", async () => {
    // Frozen inside an hour: the send counts in the hour read here, however long it takes.
    const hourStart = nextHourStart();
    service.clock.freeze(hourStart + 60);
    const hour = hourStart / 3600;
    // The send lands in one shard of the hour, chosen at random: the hour's count is their sum.
    const shards = Array.from({ length: service.app.config.otp.companySendShards }, (_, shard) => shard);
    const hourCount = async () =>
      (await Promise.all(shards.map((shard) => getItem(companySendLimitKey(company.company_id, hour, shard))))).reduce(
        (sum, item) => sum + Number(item?.sent ?? 0),
        0,
      );
    const before = await hourCount();
    dynamoProxy.rule = dropOnce('UpdateItem', '#SENDS#SHARD#');
    const phone = randomPhoneNumber();
    const answer = await invoke(loginPhone, {
      path: '/l',
      headers: headers(),
      body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(dynamoProxy.seen.filter((request) => request.mode === 'drop-answer')).toHaveLength(1);
    dynamoProxy.reset();
    expect(await hourCount()).toBe(before + 1);
  });
});

describe('a transaction cancelled for a conflict after every retry', () => {
  it('answers the 503 envelope (code 16) with Retry-After, not 500', async () => {
    dynamoProxy.rule = onlyFor('TransactWriteItems', undefined, 'conflict');
    const answer = await timed(register, { path: '/r', headers: headers(), body: sampleRegistration() });
    expectFastUnavailable(answer, 'user_register');
    expect(dynamoProxy.seen.filter((request) => request.mode === 'conflict').length).toBeGreaterThan(1);
  });
});

describe('work answered 503 for its deadline', () => {
  let slow: InProcessService;
  beforeAll(() => {
    slow = testService(
      { DYNAMODB_ENDPOINT: dynamoProxy.endpoint, DYNAMODB_TIMEOUT_MS: '20000', FUNCTION_TIMEOUT_SECONDS: '2', DEADLINE_MARGIN_MS: '1000' },
      { tableName: table },
    );
  });

  it('writes nothing later: its next DynamoDB call is never sent', async () => {
    // The company lookup is held until the request has been answered 503 for its deadline (1 s), then
    // answered: the work goes on from there and would register.
    dynamoProxy.reset();
    dynamoProxy.lateMs = Number.POSITIVE_INFINITY;
    const holdLookup = onlyFor('GetItem', '"COMPANY"', 'late');
    let released = false;
    let sent = () => {};
    const sentAfterRelease = new Promise<string>((resolve) => {
      sent = () => resolve('a DynamoDB call was sent after the deadline');
    });
    dynamoProxy.rule = (request) => {
      if (released) sent();
      return holdLookup(request);
    };
    const stopped = logged(slow, 'work stopped after the deadline');
    try {
      const body = sampleRegistration();
      expectUnavailable(await invoke(slow.handlers.userRegister, { path: '/r', headers: headers(), body }));
      released = true;
      await dynamoProxy.releaseLate();
      // Then the work ends at its next call, which never leaves (the service says so), or it sends it.
      expect(await Promise.race([stopped.seen, sentAfterRelease])).toBe('work stopped after the deadline');
      expect(dynamoProxy.seen.map((request) => request.operation)).toEqual(['GetItem']);
      expect(await getItem(phoneClaimKey(company.company_id, `+1${body.phone_number}`, 2))).toBeUndefined();
    } finally {
      stopped.restore();
      dynamoProxy.reset();
      dynamoProxy.lateMs = 1_500;
    }
  });
});

describe('a registration answered 503 after its write was applied unseen', () => {
  /** The retry, faults off, answers 200 the user holding the phone's claim (its first run's), with a token that works. */
  const retryGetsItsOwnUser = async (send: () => Promise<Answer>, phone: string) => {
    const stored = await getItem(phoneClaimKey(company.company_id, `+1${phone}`, 2));
    expect(stored?.user_id).toBeDefined();
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.user_id).toBe(stored?.user_id);
    const list = await invoke(referralProgram, {
      method: 'GET',
      path: '/p',
      headers: headers({ Authorization: `Token ${retried.body.data.token.token}` }),
    });
    expect(list.status).toBe(200);
    return retried;
  };

  /** A registration of the phone with a proof of it (a code of otp_type 2, verified), faults off. */
  const provenRegistration = async (phone: string) => {
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    expect((await invoke(loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
    const code = codeIn(sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message);
    const verified = await invoke(verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } });
    return sampleRegistration({ phone_number: phone, phone_verification_token: verified.body.data.verification_token });
  };

  it('retried with its Idempotency-Key gets its own user back with a live session, not 409', async () => {
    // Every attempt's answer is dropped: the first applies it, the SDK's retries find it applied, and all answers are lost.
    dynamoProxy.rule = onlyFor('TransactWriteItems', undefined, 'drop-answer');
    const body = sampleRegistration();
    const key = `lost-${randomPhoneNumber()}`;
    const send = () => invoke(register, { path: '/r', headers: headers({ 'Idempotency-Key': key }), body });
    expectUnavailable(await send());
    dynamoProxy.reset();
    const retried = await retryGetsItsOwnUser(send, String(body.phone_number));
    // And again: now the stored answer.
    expect((await send()).body).toEqual(retried.body);
  });

  it('sent again after its answer gets that answer, though its claim of the key landed late, after the answer was stored', async () => {
    const body = sampleRegistration();
    const send = () => invoke(register, { path: '/r', headers: headers({ 'Idempotency-Key': `late-claim-${body.phone_number}` }), body });
    // The claim's held copy lands after the answer was stored.
    const first = await withFirstCopyLate('PutItem', '#IDEMPOTENCY#', send);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await send()).body).toEqual(first.body);
  });

  it('uses a code up once, though the put that stored it landed late, after the code was used', async () => {
    const phone = randomPhoneNumber();
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    const verify = () => {
      const code = codeIn(sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message);
      return invoke(verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } });
    };
    // The code's held put lands after the code was used.
    const sent = await withFirstCopyLate(
      'PutItem',
      '#OTP#',
      () => invoke(loginPhone, { path: '/l', headers: headers(), body: target }),
      async () => {
        expect((await verify()).status).toBe(200);
      },
    );
    expect(sent.status).toBe(200);
    const again = await verify();
    expect([again.status, again.body.success]).toEqual([400, 0]);
  });

  it('with a phone proof: the retry gets its own user back, not "invalid proof" for the proof its first run used up', async () => {
    const phone = randomPhoneNumber();
    const body = await provenRegistration(phone);
    const send = () => invoke(register, { path: '/r', headers: headers({ 'Idempotency-Key': `proven-${phone}` }), body });
    dynamoProxy.rule = onlyFor('TransactWriteItems', undefined, 'drop-answer');
    expectUnavailable(await send());
    dynamoProxy.reset();
    // The retry's own run finds the proof used up and the phone held, both by its first run.
    await retryGetsItsOwnUser(send, phone);
  });

  it('taking the phone over from a holder who never proved it: the retry gets its own user back, not "invalid proof"', async () => {
    const holder = await signUp(service, company);
    const phone = String(holder.registration.phone_number);
    const body = await provenRegistration(phone);
    const send = () => invoke(register, { path: '/r', headers: headers({ 'Idempotency-Key': `reclaim-${phone}` }), body });
    // The first round is refused (the holder has the phone); the takeover's round is applied unseen.
    dynamoProxy.reset();
    let transactions = 0;
    dynamoProxy.rule = (request) => (request.operation === 'TransactWriteItems' && transactions++ > 0 ? 'drop-answer' : 'pass');
    expectUnavailable(await send());
    dynamoProxy.reset();
    const retried = await retryGetsItsOwnUser(send, phone);
    expect(retried.body.data.user_id).not.toBe(holder.userId);
  });

  it('with a device: the retry answers the device_key its first run bound, and the device logs in by PIN', async () => {
    dynamoProxy.rule = onlyFor('TransactWriteItems', undefined, 'drop-answer');
    const keys = newDeviceKeyPair();
    const body = sampleRegistration({ ...PINS, device_public_key: keys.publicKey });
    const key = `lost-device-${randomPhoneNumber()}`;
    const send = () => invoke(register, { path: '/r', headers: headers({ 'Idempotency-Key': key }), body });
    expectUnavailable(await send());
    dynamoProxy.reset();
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.device_key).toEqual(expect.any(String));
    const device = { privateKey: keys.privateKey, deviceKey: retried.body.data.device_key };
    const pinBody = signedLoginPin(device, company.company_id, PINS.login_pin, { timestamp: epochSeconds(service.clock) });
    expect((await invoke(service.handlers.loginPin, { path: '/p', headers: headers(), body: pinBody })).status).toBe(200);
  });
});

describe('a verification answered 503 after its code was used up', () => {
  it('retried with its Idempotency-Key gets its proof: the right code is not "expired"', async () => {
    const phone = randomPhoneNumber();
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    expect((await invoke(loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
    const code = codeIn(sns.published.filter((sms) => sms.phoneNumber === `+1${phone}`).at(-1)?.message);
    // The code is used up, then storing the proof fails.
    dynamoProxy.rule = onlyFor('PutItem', '#PROOF#', 'throttle');
    const verify = () =>
      invoke(verifyOtp, { path: '/v', headers: headers({ 'Idempotency-Key': `v-${phone}` }), body: { ...target, otp: code } });
    expectUnavailable(await verify());
    dynamoProxy.reset();
    const retried = await verify();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.verification_token).toEqual(expect.any(String));
  });
});

describe('a PIN login answered 503 after it took its nonce', () => {
  // The nonce and the PIN's try are taken, then the grant (in steps: the session, then the user's
  // side) fails: at the session's put, or at the user's write after it (the session then marked ended).
  const grantFaults = {
    "the session's put": onlyFor('PutItem', SESSION_PREFIX, 'throttle'),
    "the user's write after the session": onlyFor('UpdateItem', 'session_version', 'throttle'),
  };
  it.each(Object.entries(grantFaults))(
    'retried with its Idempotency-Key logs in (its own nonce is no replay) when %s fails; the nonce under another key is still refused',
    async (_, fault) => {
      const { account, device } = await signUpWithDevice(service, company);
      // Keys of this case's own: a key's stored answer is the company's, across cases.
      const keys = randomUUID();
      const keyOf = (n: number) => `pin-login-${keys}-${n}`;
      const body = signedLoginPin(device, company.company_id, PINS.login_pin, { timestamp: epochSeconds(service.clock) });
      const login = (key: string) => invoke(service.handlers.loginPin, { path: '/p', headers: headers({ 'Idempotency-Key': key }), body });
      dynamoProxy.rule = fault;
      expectUnavailable(await login(keyOf(1)));
      dynamoProxy.reset();
      // No live session but the registration's: a failed grant ends the one it stored.
      expect(await querySessions(service.app.table, company.company_id, account.userId)).toHaveLength(1);
      const retried = await login(keyOf(1));
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.data.token.token).toEqual(expect.any(String));
      expect((await login(keyOf(2))).status).toBe(401);
    },
  );
});

describe('a single-use item whose put lands late, after it was used', () => {
  it('a passkey challenge taken by its ceremony stays taken: the late copy of its put does not bring it back', async () => {
    const challenge = randomBytes(32).toString('base64url');
    const now = epochSeconds(service.clock);
    const take = () =>
      writeTransaction(service.app.table, [
        { label: 'challenge', item: challengeTake(service.app.table, company.company_id, challenge, now) },
      ]);
    const store = () => storeChallenge(service.app.table, company.company_id, challenge, { purpose: 'login', expires_at: now + 300 });
    await withFirstCopyLate('PutItem', challenge, store, take);
    expect(await getChallenge(service.app.table, company.company_id, challenge, now)).toBeUndefined();
    await expect(take()).rejects.toBeInstanceOf(ConditionsFailed);
  });

  it('a phone proof used up stays used: the late copy of its put does not bring it back', async () => {
    const proofHash = randomBytes(32).toString('hex');
    const now = epochSeconds(service.clock);
    const phone = `+1${randomPhoneNumber()}`;
    const expected = { phoneE164: phone, userType: 2, otpType: 2, now };
    const use = () =>
      writeTransaction(service.app.table, [
        { label: 'proof', item: phoneProofConsume(service.app.table, company.company_id, proofHash, expected) },
      ]);
    const record = { phone_e164: phone, user_type: 2, otp_type: 2, created_at: now, expires_at: now + 600 };
    await withFirstCopyLate('PutItem', proofHash, () => putPhoneProof(service.app.table, company.company_id, proofHash, record), use);
    await expect(use()).rejects.toBeInstanceOf(ConditionsFailed);
  });
});

describe('a count given back whose write lands late', () => {
  it('gives back one count of an hour: the late copy, landing after another count, takes nothing off', async () => {
    const key = companySendLimitKey(company.company_id, 424242, 0);
    const count = async () =>
      expect(await countInWindow(service.app.table, key, 'sent', 10, epochSeconds(service.clock) + 3600)).toBe(true);
    await count();
    await count();
    // The give-back's held copy lands after another count.
    await withFirstCopyLate('UpdateItem', ':minusOne', () => uncountInWindow(service.app.table, key, 'sent'), count);
    const stored = await direct.send(new GetCommand({ TableName: table, Key: key }));
    expect(stored.Item?.sent).toBe(2);
  });
});

describe('a try given back whose write lands late', () => {
  const attempt = (phone: string, id: string, now: number) =>
    takePhoneTry(service.app.table, company.company_id, phone, { id, now, windowSeconds: 86_400, maxTries: 10 });
  /** The tries of the phone's window once `give` (its write matching `held` held) lands after the same attempt took a try again. */
  async function triesAfterALateGiveBack(held: string, others: { before: string[]; between: string[] }): Promise<unknown> {
    const phone = `+1${randomPhoneNumber()}`;
    const now = epochSeconds(service.clock);
    for (const id of others.before) expect(await attempt(phone, id, now)).toMatchObject({ taken: true });
    const taken = await attempt(phone, 'retried-attempt', now);
    if (!taken.taken) throw new Error('no try taken');
    for (const id of others.between) expect(await attempt(phone, id, now)).toMatchObject({ taken: true });
    // Its give-back's write is held; the same attempt (sent again with its Idempotency-Key) takes a try in the same second.
    await withFirstCopyLate(
      'UpdateItem',
      held,
      () => givePhoneTryBack(service.app.table, company.company_id, phone, { id: 'retried-attempt', ...taken }),
      async () => expect(await attempt(phone, 'retried-attempt', now)).toMatchObject({ taken: true }),
    );
    const stored = await direct.send(new GetCommand({ TableName: table, Key: phoneFailuresKey(company.company_id, phone) }));
    return stored.Item?.tries;
  }

  it("leaves the same attempt's next try counted: the late copy of its give-back, landing after it took a try again in the same second, takes nothing", async () => {
    const tries = await triesAfterALateGiveBack('DELETE tries', { before: ['earlier-wrong-code'], between: [] });
    expect(tries).toEqual(new Set(['earlier-wrong-code', 'retried-attempt']));
  });

  it("leaves it counted too when another attempt's try came between: the late copy of the give-back that finds that try's stamp takes nothing", async () => {
    // Held: the write that takes out the try alone (its update expression nothing else), once the stamp is found not its own.
    const tries = await triesAfterALateGiveBack('DELETE tries :attempt"', { before: [], between: ['another-attempt'] });
    expect(tries).toEqual(new Set(['another-attempt', 'retried-attempt']));
  });
});

describe('a profile change whose update lands late', () => {
  it('leaves the newer change: the late copy of an older one, landing after it, puts nothing back', async () => {
    const account = await signUp(service, company);
    const update = async (image: string) => {
      const answer = await invoke(service.handlers.userProfileUpdate, {
        path: '/p',
        headers: headers({ Authorization: account.authorization }),
        body: { image },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };
    await withFirstCopyLate(
      'UpdateItem',
      'first.png',
      () => update('https://example.com/first.png'),
      () => update('https://example.com/second.png'),
    );
    const stored = await direct.send(new GetCommand({ TableName: table, Key: userKey(company.company_id, account.userId) }));
    expect(stored.Item?.image).toBe('https://example.com/second.png');
  });
});

describe('a send given back whose write lands late', () => {
  it('takes back its own count only: the late copy, landing after a new send in the same second, leaves that one counted', async () => {
    const phone = `+1${randomPhoneNumber()}`;
    const now = epochSeconds(service.clock);
    const interval = service.app.config.otp.sendIntervalSeconds;
    const count = () => countSendInNewWindow(service.app.table, company.company_id, phone, now, interval);
    const failed = await count();
    expect(failed.counted).toBe(true);
    const sendId = failed.counted ? failed.sendId : '';
    // The failed send's give-back is held; a new send in the same second is counted meanwhile.
    await withFirstCopyLate(
      'DeleteItem',
      '#SENDS#',
      () => uncountPhoneSend(service.app.table, company.company_id, phone, sendId, undefined),
      async () => expect((await count()).counted).toBe(true),
    );
    const stored = await direct.send(new GetCommand({ TableName: table, Key: phoneSendLimitKey(company.company_id, phone) }));
    expect(stored.Item).toMatchObject({ window_count: 1, last_sent_at: now });
    // So the interval holds: another send in that second is refused.
    expect((await count()).counted).toBe(false);
  });
});

describe('a right PIN whose clear of its tally lands late', () => {
  /**
   * The tries left after a right PIN on a device (the request `prepare` answers, made once prepared)
   * whose clear's held copy lands after two wrong PIN logins on the device: those two and a third.
   */
  async function triesLeftAfterALateClear(prepare: (device: Device) => Promise<() => Promise<Answer>>) {
    const { device } = await signUpWithDevice(service, company);
    const rightPin = await prepare(device);
    const wrong: Answer[] = [];
    const right = await withFirstCopyLate('DeleteItem', '"PINTRIES#login', rightPin, async () => {
      wrong.push(await pinLogin(service, company, device, '0000'), await pinLogin(service, company, device, '0000'));
    });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    const third = await pinLogin(service, company, device, '0000');
    return [...wrong, third].map((answer) => [answer.status, answer.body.data.attempts_left]);
  }
  const countedOnce = [
    [400, 4],
    [400, 3],
    [400, 2],
  ];

  it('leaves the wrong tries sent after its login: the late copy of the clear deletes none of them', async () => {
    expect(await triesLeftAfterALateClear(async (device) => () => pinLogin(service, company, device, PINS.login_pin))).toEqual(countedOnce);
  });

  it('leaves the wrong tries sent after a step-up by the device: the late copy of its clear deletes none of them', async () => {
    const left = await triesLeftAfterALateClear(async (device) => {
      // A strong session first; the step-up's clear is the one held.
      const strong = await pinLogin(service, company, device, PINS.login_pin);
      expect(strong.status, JSON.stringify(strong.body)).toBe(200);
      return () =>
        invoke(service.handlers.stepUp, {
          path: '/s',
          headers: headers({ 'Idempotency-Key': randomUUID(), Authorization: `Token ${strong.body.data.token.token}` }),
          body: signedStepUp(device, company.company_id, PINS.login_pin, epochSeconds(service.clock)),
        });
    });
    expect(left).toEqual(countedOnce);
  });
});
