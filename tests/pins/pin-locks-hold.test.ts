// A PIN lock holds (API contract 3.6-3.8: locked "until OTP login or reset"), whatever a client
// does with Idempotency-Keys and whatever the table does to the writes around the lock: an old key
// sent again after its record expired, a key reused with other PINs after a failed lock notice,
// a lock mark the table throttled. Each case was a way past the lock (issue 32); the fault proxy
// puts DynamoDB's faults in the way, and the clock is moved rather than waited for.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../../lib/call.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { pinTriesKey } from '../../lib/store/keys.js';
import { type Device, noticeEvents, PINS, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { captureLogs } from '../hardening/log-capture.js';
import { signedLoginPin } from '../harness/device-keys.js';
import { type FaultProxy, faultWhen, startFaultProxy } from '../harness/fault-proxy.js';
import { type Account, expectFailure, type InProcessService, invoke, newCompany, testService } from '../helpers.js';

const PIN_LOCKED_EVENT = 5;
const WRONG = ['1111', '2222', '3333', '4444', '5555'];
let proxy: FaultProxy;
let service: InProcessService;
let company: Company;

beforeAll(async () => {
  proxy = await startFaultProxy(inject('dynamodbEndpoint'));
  // LOG_LEVEL INFO: the audit lines are read below.
  // A token used a day after the wrong tries: access tokens that outlive the day keep this about the lock.
  service = testService({ DYNAMODB_ENDPOINT: proxy.endpoint, LOG_LEVEL: 'INFO', ACCESS_TOKEN_TTL_SECONDS: String(2 * 24 * 3600) });
  company = await newCompany(service);
});

afterEach(() => {
  proxy.reset();
  service.clock.reset();
});

afterAll(async () => {
  await proxy?.close();
});

const keyed = (key: string | undefined) => ({ CompanyID: company.company_id, ...(key ? { 'Idempotency-Key': key } : {}) });

function loginPin(device: Device, pin: string, key?: string) {
  const body = signedLoginPin(device, company.company_id, pin, { timestamp: epochSeconds(service.clock) });
  return invoke(service.handlers.loginPin, { path: '/wallet/v3/auth/login_pin', headers: keyed(key), body });
}

function authorize(account: Account, pin: string, key?: string) {
  return invoke(service.handlers.transactionAuthorization, {
    path: '/wallet/v3/auth/transaction_authorization',
    headers: { ...keyed(key), Authorization: account.authorization },
    body: { amount: '10.50', currency: 'EUR', payee: 'Acme Coffee', reference: `order-${Math.random()}`, transaction_pin: pin },
  });
}

/** A PIN's tally item (contract 3.15): the login PIN's of a device, the transaction PIN's of strong sessions. */
async function triesItem(account: Account, pinType: 'login' | 'transaction', tally?: string) {
  const key = pinTriesKey(company.company_id, account.userId, pinType, tally);
  return (await service.app.table.client.send(new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }))).Item;
}

/** A customer whose token is a strong session (contract 3.15): a PIN login on the device registration bound. */
async function strongAccount(): Promise<Account> {
  const { account, device } = await signUpWithDevice(service, company);
  return { ...account, authorization: await strongSession(service, company, device) };
}

const lockNotices = async (account: Account) =>
  (await noticeEvents(service, company, account.userId)).filter((event) => event === PIN_LOCKED_EVENT);

describe('a PIN locked by five wrong tries', () => {
  it('stays locked for the keys that locked it once their records expire: the right login PIN with any of them is 18', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const keys = WRONG.map((_, index) => `lock-${account.userId}-${index}`);
    for (const [index, pin] of WRONG.entries()) expectFailure(await loginPin(device, pin, keys[index]), 400, 17);
    expectFailure(await loginPin(device, PINS.login_pin, `fresh-${account.userId}`), 400, 18);
    // A day on, the keys' records are gone: each key names a new request, which counts as one.
    service.clock.advance(IDEMPOTENCY_WINDOW_SECONDS + 3600);
    for (const key of keys) expectFailure(await loginPin(device, PINS.login_pin, key), 400, 18);
    expectFailure(await loginPin(device, PINS.login_pin), 400, 18);
    expect(await lockNotices(account)).toHaveLength(1);
  });

  it('stays locked for the transaction PIN too, a day later, with the keys of its wrong tries', async () => {
    const account = await strongAccount();
    const keys = WRONG.map((_, index) => `tx-lock-${account.userId}-${index}`);
    for (const [index, pin] of WRONG.entries()) expectFailure(await authorize(account, pin, keys[index]), 400, 17);
    service.clock.advance(IDEMPOTENCY_WINDOW_SECONDS + 3600);
    for (const key of keys) expectFailure(await authorize(account, PINS.transaction_pin, key), 400, 18);
  });
});

describe('the transaction PIN with its lock notice failing', () => {
  it('answers the locking try 400 (17, none left), binds its key to that body, and compares nothing more', async () => {
    const account = await strongAccount();
    for (const pin of WRONG.slice(0, 4)) expectFailure(await authorize(account, pin), 400, 17);
    // Every write of a notice fails, retries included.
    proxy.rule = faultWhen(({ operation, body }) => operation === 'TransactWriteItems' && body.includes('NOTIF#'), 'server-error');
    const logs = captureLogs();
    const key = `notice-${account.userId}`;
    let locking: Awaited<ReturnType<typeof authorize>>;
    try {
      locking = await authorize(account, WRONG[4]!, key);
    } finally {
      logs.stop();
    }
    expectFailure(locking, 400, 17);
    expect(locking.body.data.attempts_left).toBe(0);
    // The one audited check (checkPinAndAudit): the transaction PIN's tries are audited as login and change PIN's are.
    const audited = logs.text();
    for (const event of ['pin_failed', 'pin_locked']) expect(audited).toContain(`"audit_event":"${event}"`);
    expect(audited).toContain('PIN lock notice not written');
    proxy.reset();
    // The same key with other PINs, the right one last: another request, never compared.
    for (const pin of ['1212', '3434', PINS.transaction_pin]) expectFailure(await authorize(account, pin, key), 409, 20);
    expectFailure(await authorize(account, PINS.transaction_pin, `after-${account.userId}`), 400, 18);
    expect((await triesItem(account, 'transaction'))?.locked_at).toEqual(expect.any(Number));
  });
});

describe('a lock whose mark the table throttled', () => {
  it('answers "busy" (503) only while the locking try may be in flight, then 18 for good, with one notice', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    for (const pin of WRONG.slice(0, 4)) expectFailure(await loginPin(device, pin), 400, 17);
    service.clock.freeze(epochSeconds(service.clock));
    proxy.rule = faultWhen(({ operation, body }) => operation === 'UpdateItem' && body.includes('locked_at = :now'), 'throttle');
    const locking = await loginPin(device, WRONG[4]!);
    expectFailure(locking, 400, 17);
    expect(locking.body.data.attempts_left).toBe(0);
    proxy.reset();
    expect((await triesItem(account, 'login', device.deviceKey))?.locked_at).toBeUndefined();
    // Within a function's time the fifth try may still be at work: retry soon.
    const soon = await loginPin(device, PINS.login_pin);
    expectFailure(soon, 503, 16);
    expect(soon.headers['retry-after']).toBe('1');
    // Past it, the full tries are the lock: marked by the first attempt that finds them, told once.
    service.clock.advance(Math.ceil(service.app.config.functionTimeoutMs / 1000) + 5);
    const answers = await Promise.all([loginPin(device, PINS.login_pin), loginPin(device, WRONG[0]!)]);
    for (const answer of answers) expectFailure(answer, 400, 18);
    expect((await triesItem(account, 'login', device.deviceKey))?.locked_at).toEqual(expect.any(Number));
    expect(await lockNotices(account)).toHaveLength(1);
    service.clock.advance(3600);
    expectFailure(await loginPin(device, PINS.login_pin), 400, 18);
  });
});
