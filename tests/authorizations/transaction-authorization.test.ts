// Transaction authorization (API contract 3.8) in process, against DynamoDB Local: the transaction
// PIN approves one exact payment, which the payment service redeems once, before expiry, for the
// very values approved (PSD2 RTS articles 4 and 5, rule by rule), and the DynamoDB requests each
// outcome makes, against the documented minimum (scripts/bench/minimum-round-trips.ts).
import { createServer } from 'node:net';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizeAmount } from '../../lib/authorizations/payment-fields.js';
import { epochSeconds } from '../../lib/clock.js';
import { type Company, createCompany } from '../../lib/companies/companies.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { authorizationKey, userKey } from '../../lib/store/keys.js';
import { pinTriesClear, takePinTry } from '../../lib/store/pin-store.js';
import { MINIMUM_ROUND_TRIPS } from '../../scripts/bench/minimum-round-trips.js';
import { signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { captureLogs } from '../hardening/log-capture.js';
import { scanItems } from '../harness/table-snapshot.js';
import {
  type Account,
  expectFailure,
  expectFiveComparedFiveRefused,
  type InProcessService,
  invoke,
  lambdaContext,
  logIn,
  newCompany,
  provePhone,
  signUp,
  standalone,
  testService,
} from '../helpers.js';

// LOG_LEVEL INFO: the audit lines are what the log test reads.
const service = testService({ LOG_LEVEL: 'INFO' });
const PIN = '1397';
const WRONG_PIN = '2468';
const PATH = '/wallet/v3/auth/transaction_authorization';
let company: Company;
let reference = 0;

beforeAll(async () => {
  company = await newCompany(service);
});

const payment = (overrides: Record<string, unknown> = {}) => ({
  amount: '10.50',
  currency: 'EUR',
  payee: 'Acme Coffee',
  reference: `order-${Date.now()}-${reference++}`,
  ...overrides,
});

async function authorize(account: Account, body: Record<string, unknown>, on: Company = company, by: InProcessService = service) {
  return invoke(by.handlers.transactionAuthorization, {
    path: PATH,
    headers: { CompanyID: on.company_id, Authorization: account.authorization },
    body: { transaction_pin: PIN, ...body },
  });
}

/** Authorizes a payment and answers its token. */
async function authorized(account: Account, body: Record<string, unknown>): Promise<string> {
  const answer = await authorize(account, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data.authorization_token;
}

let invocation = 0;
/** redeemAuthorization as the Lambda API invokes it: a payload, a context with its own request id. */
function redeem(payload: unknown, by: InProcessService = service) {
  const context = { ...lambdaContext(), awsRequestId: `redeem-${invocation++}` };
  return by.invoked.redeemAuthorization(payload, context) as Promise<any>;
}

const invalid = { success: 0, error: [19], data: { message: 'BAD_REQUEST' } };

/** A customer whose token is a strong session (contract 3.15): a PIN login on the device registration bound. */
async function payer(by: InProcessService = service): Promise<Account> {
  const { account, device } = await signUpWithDevice(by, company);
  return { ...account, authorization: await strongSession(by, company, device) };
}

describe('transaction_authorization', () => {
  it('answers a token of 256 random bits, stored only as its SHA-256, and expires_in', async () => {
    const account = await payer();
    const body = payment();
    const answer = await authorize(account, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({
      success: 1,
      error: [],
      data: { authorization_token: expect.any(String), expires_in: 120, acr: 'strong' },
    });
    const token: string = answer.body.data.authorization_token;
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // Paged: one Scan page of the run's shared table (1 MB) may not reach the company's items.
    const text = JSON.stringify(await scanItems(service.app.table.client, service.app.table.name, company.company_id));
    expect(text).not.toContain(token);
    expect(text).toContain(authorizationKey(company.company_id, hashToken(token)).pk);
  });

  it('refuses a wrong PIN with 17 and the tries left; a right PIN sets the count back', async () => {
    const account = await payer();
    for (const left of [4, 3]) {
      const answer = await authorize(account, { ...payment(), transaction_pin: WRONG_PIN });
      expectFailure(answer, 400, 17);
      expect(answer.body.data.attempts_left).toBe(left);
    }
    await authorized(account, payment());
    const again = await authorize(account, { ...payment(), transaction_pin: WRONG_PIN });
    expect(again.body.data.attempts_left).toBe(4);
  });

  it('counts 10 wrong PINs at once exactly: 5 compared (17, 4..0 left), 5 refused (18, or 503 while the five were in flight), one notice; reset unlocks', async () => {
    const account = await payer();
    const answers = await Promise.all(Array.from({ length: 10 }, () => authorize(account, { ...payment(), transaction_pin: WRONG_PIN })));
    expectFiveComparedFiveRefused(answers);
    // Locked: the right PIN too, until reset_pin (pin_type 2) clears the tries.
    expectFailure(await authorize(account, payment()), 400, 18);
    const notices = await service.app.table.client.send(
      new QueryCommand({
        TableName: service.app.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :notif)',
        ExpressionAttributeValues: { ':pk': userKey(company.company_id, account.userId).pk, ':notif': 'NOTIF#' },
      }),
    );
    const locked = (notices.Items ?? []).filter((item) => item.notification_event_type === 5);
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({ notification_type: 2, notification_body: expect.stringContaining('transaction PIN') });
    const target = { companyId: company.company_id, userId: account.userId, pinType: 'transaction' as const };
    await service.app.table.client.send(new DeleteCommand(pinTriesClear(service.app.table, target).Delete!));
    await authorized(account, payment());
  });

  it('counts the login PIN apart: a locked login PIN leaves the transaction PIN working', async () => {
    const account = await payer();
    const login = { companyId: company.company_id, userId: account.userId, pinType: 'login' as const };
    const nowSeconds = epochSeconds(service.clock);
    const attempt = (attemptId: string) =>
      takePinTry(service.app.table, login, {
        attemptId,
        maxTries: service.app.config.pinMaxFailures,
        nowSeconds,
        staleBefore: nowSeconds - 60,
      });
    for (let index = 0; index < service.app.config.pinMaxFailures; index++) await attempt(`try-${index}`);
    expect(await attempt('one more')).toMatchObject({ taken: false });
    await authorized(account, payment());
  });

  it('authorizes one reference per user once while its authorization lives (400, code 1, on reference), again after expiry', async () => {
    const [ada, grace] = [await payer(), await payer()];
    const body = payment();
    await authorized(ada, body);
    const twice = await authorize(ada, { ...body, amount: '11' });
    expectFailure(twice, 400, 1);
    expect(twice.body.data.errors).toEqual([{ code: 1, field: 'reference', detail: expect.stringContaining('live authorization') }]);
    // The PIN was right: the refusal leaves no try counted.
    const wrong = await authorize(ada, { ...payment(), transaction_pin: WRONG_PIN });
    expect(wrong.body.data.attempts_left).toBe(4);
    // Another user's reference is their own.
    await authorized(grace, body);
    service.clock.advance(service.app.config.authorizationTtlSeconds);
    await authorized(ada, body);
  });

  it.each([
    ['amount', '0', 'must be greater than 0'],
    ['amount', '0.0000', 'must be greater than 0'],
    ['amount', '1234567890123', 'at most 12 integer and 4 fraction digits'],
    ['amount', '1.23456', 'at most 12 integer and 4 fraction digits'],
    ['amount', 10.5, 'decimal string'],
    ['amount', '-1', 'decimal string'],
    ['amount', '1e3', 'decimal string'],
    ['currency', 'eur', 'three capital letters'],
    ['currency', 'ABC', 'ISO 4217'],
    ['payee', 'x'.repeat(129), ''],
    ['reference', 'a\nb', 'control characters'],
    ['transaction_pin', 1397, '4 to 6 digits'],
  ])('refuses %s %j with 400, code 1, on that field, before the PIN is counted', async (field, value, detail) => {
    const account = await payer();
    const answer = await authorize(account, { ...payment(), [field]: value });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors).toEqual([{ code: 1, field, detail: expect.stringContaining(detail) }]);
    const wrong = await authorize(account, { ...payment(), transaction_pin: WRONG_PIN });
    expect(wrong.body.data.attempts_left).toBe(4);
  });

  it('never approves with a transaction PIN changed between its check and its write: 17, no authorization stored', async () => {
    const account = await payer();
    const user = userKey(company.company_id, account.userId);
    // Just before the authorization's transaction leaves, the PIN is changed (its version moves on).
    let changed = false;
    service.app.table.client.middlewareStack.add(
      (next) => async (args) => {
        const input = (args as { input: { TransactItems?: unknown[] } }).input;
        if (!changed && input.TransactItems && JSON.stringify(input.TransactItems).includes('#AUTHZ#')) {
          changed = true;
          await service.app.table.client.send(
            new UpdateCommand({
              TableName: service.app.table.name,
              Key: user,
              UpdateExpression: 'ADD transaction_pin_version :one',
              ExpressionAttributeValues: { ':one': 1 },
            }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name: 'changePinFirst' },
    );
    try {
      const answer = await authorize(account, payment());
      expect(changed).toBe(true);
      expectFailure(answer, 400, 17);
      expect(answer.body.data.attempts_left).toBe(4);
    } finally {
      service.app.table.client.middlewareStack.remove('changePinFirst');
    }
    const items = await scanItems(service.app.table.client, service.app.table.name, company.company_id);
    expect(items.filter((item) => item.user_id === account.userId && item.pk.startsWith(`C#${company.company_id}#AUTHZ#`))).toEqual([]);
  });

  it('refuses a call without a valid token (401, code 4)', async () => {
    const account = await payer();
    expectFailure(await authorize({ ...account, authorization: 'Token nope' }, payment()), 401, 4);
    // A token of this company is no token in another.
    expectFailure(await authorize(account, payment(), await newCompany(service)), 401, 4);
  });
});

describe('transaction_authorization from an SMS-strength session (contract 3.15)', () => {
  const smsAuthorize = (account: Account, on: Company, body: Record<string, unknown>) =>
    invoke(service.handlers.transactionAuthorization, {
      path: PATH,
      headers: { CompanyID: on.company_id, Authorization: account.authorization },
      body: { transaction_pin: PIN, ...body },
    });

  it('approves nothing where the company allows no SMS payment in the currency: 403 code 5, needs strong, before the PIN is counted', async () => {
    const account = await signUp(service, company);
    for (const pin of [PIN, WRONG_PIN]) {
      const answer = await smsAuthorize(account, company, { ...payment(), transaction_pin: pin });
      expectFailure(answer, 403, 5);
      expect(answer.body.data.needs).toBe('strong');
    }
    const limited = await createCompany(service.app.table, service.clock, 'euro only', { sms_payment_limit: { EUR: '50' } });
    expectFailure(await smsAuthorize(await signUp(service, limited), limited, payment({ currency: 'USD' })), 403, 5);
    // Nothing was compared: no tally holds a try.
    const tries = await service.app.table.client.send(
      new QueryCommand({
        TableName: service.app.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :tries)',
        ExpressionAttributeValues: { ':pk': userKey(company.company_id, account.userId).pk, ':tries': 'PINTRIES#' },
        ConsistentRead: true,
      }),
    );
    expect(tries.Items).toEqual([]);
  });

  it('approves within the company’s daily limit per currency, and refuses past it; two at once pass the limit once', async () => {
    const limited = await createCompany(service.app.table, service.clock, 'limited', { sms_payment_limit: { EUR: '50' } });
    const account = await signUp(service, limited);
    const first = await smsAuthorize(account, limited, payment({ amount: '30' }));
    expect(first.body.data.acr).toBe('sms');
    const racing = await Promise.all([
      smsAuthorize(account, limited, payment({ amount: '15' })),
      smsAuthorize(account, limited, payment({ amount: '15' })),
    ]);
    expect(racing.map((answer) => answer.status).sort()).toEqual([200, 403]);
    const past = await smsAuthorize(account, limited, payment({ amount: '5.0001' }));
    expectFailure(past, 403, 5);
    expect((await smsAuthorize(account, limited, payment({ amount: '5' }))).status).toBe(200);
    // A day after the first, its 30 no longer count.
    service.clock.advance(24 * 3600 + 1);
    const dayLater = { ...account, authorization: await logIn(service, limited, account) };
    expect((await smsAuthorize(dayLater, limited, payment({ amount: '30' }))).status).toBe(200);
    service.clock.reset();
  });

  it('answers the payment service acr sms for an approval from an SMS-strength session', async () => {
    const limited = await createCompany(service.app.table, service.clock, 'redeem sms', { sms_payment_limit: { EUR: '50' } });
    const account = await signUp(service, limited);
    const body = payment({ amount: '12' });
    const answer = await smsAuthorize(account, limited, body);
    const redeemed = await redeem({ ...body, company_id: limited.company_id, authorization_token: answer.body.data.authorization_token });
    expect(redeemed.data.acr).toBe('sms');
  });

  it('approves nothing from an SMS-strength session while a change waits (a swapper’s reset of the PIN), whatever the limit', async () => {
    const limited = await createCompany(service.app.table, service.clock, 'held', { sms_payment_limit: { EUR: '500' } });
    const account = await signUp(service, limited);
    const reset = await invoke(service.handlers.resetPin, {
      path: '/wallet/v3/auth/reset_pin',
      headers: { CompanyID: limited.company_id, Authorization: account.authorization },
      body: {
        pin_type: 2,
        new_pin: '730264',
        phone_verification_token: await provePhone(service, limited, String(account.registration.phone_number), {
          authorization: account.authorization,
        }),
      },
    });
    expect(reset.body.data.pending).toBe(1);
    for (const pin of [PIN, '730264']) {
      const answer = await smsAuthorize(account, limited, { ...payment({ amount: '1' }), transaction_pin: pin });
      expectFailure(answer, 403, 5);
      expect(answer.body.data.needs).toBe('strong');
    }
  });

  it('counts wrong PINs of SMS-strength sessions on their own tally: five lock those, a strong session still approves; ten a day over every tally lock all', async () => {
    const limited = await createCompany(service.app.table, service.clock, 'tallies', { sms_payment_limit: { EUR: '500' } });
    const { account, device } = await signUpWithDevice(service, limited);
    const strong = { ...account, authorization: await strongSession(service, limited, device) };
    for (let i = 0; i < 5; i++) expectFailure(await smsAuthorize(account, limited, { ...payment(), transaction_pin: WRONG_PIN }), 400, 17);
    expectFailure(await smsAuthorize(account, limited, payment()), 400, 18);
    expect((await smsAuthorize(strong, limited, payment())).status).toBe(200);
    // Four more on the strong tally (a thief with the unlocked phone), and one: the day's ten, for every tally.
    for (let i = 0; i < 4; i++) expectFailure(await smsAuthorize(strong, limited, { ...payment(), transaction_pin: WRONG_PIN }), 400, 17);
    const tenth = await smsAuthorize(strong, limited, { ...payment(), transaction_pin: WRONG_PIN });
    expectFailure(tenth, 400, 17);
    expectFailure(await smsAuthorize(strong, limited, payment()), 400, 18);
  });
});

describe('redeemAuthorization', () => {
  let ada: Account;
  beforeAll(async () => {
    ada = await payer();
  });

  it('redeems once, for the values approved, amounts compared as decimals', async () => {
    const body = payment({ amount: '0010.50' });
    const before = epochSeconds(service.clock);
    const token = await authorized(ada, body);
    const after = epochSeconds(service.clock);
    const answer = await redeem({ ...body, amount: '10.5', company_id: company.company_id.toUpperCase(), authorization_token: token });
    expect(answer).toEqual({
      success: 1,
      error: [],
      data: {
        user_id: ada.userId,
        amount: '10.5',
        currency: 'EUR',
        payee: 'Acme Coffee',
        reference: body.reference,
        authorized_date: expect.any(Number),
        // How strong the approving session was (contract 3.15): the payment service sets its own limits by it.
        acr: 'strong',
      },
    });
    // The authorization's second, in UNIX seconds: between the clock's second before it and after it.
    expect(answer.data.authorized_date).toBeGreaterThanOrEqual(before);
    expect(answer.data.authorized_date).toBeLessThanOrEqual(after);
    // Used: the same payload again is refused.
    expect(await redeem({ ...body, company_id: company.company_id, authorization_token: token })).toEqual(invalid);
  });

  it.each([
    ['amount', '10.51'],
    ['amount', '105'],
    ['currency', 'USD'],
    ['payee', 'Acme Coffee '],
    ['payee', 'acme coffee'],
    ['reference', 'another-order'],
  ])('refuses %s changed to %j with 19, saying nothing of which; the authorization stays redeemable', async (field, value) => {
    const body = payment();
    const token = await authorized(ada, body);
    const changed = await redeem({ ...body, [field]: value, company_id: company.company_id, authorization_token: token });
    expect(changed).toEqual(invalid);
    expect(JSON.stringify(changed)).not.toContain(field);
    expect((await redeem({ ...body, company_id: company.company_id, authorization_token: token })).success).toBe(1);
  });

  it('redeems until its last second, and refuses it expired (19), even for the right values', async () => {
    const ttl = service.app.config.authorizationTtlSeconds;
    // Frozen, so no second ticks between the authorization and the redeem.
    service.clock.freeze(Math.floor(service.clock.now() / 1000) + 1);
    try {
      const [late, inTime] = [payment(), payment()];
      const lateToken = await authorized(ada, late);
      const inTimeToken = await authorized(ada, inTime);
      service.clock.advance(ttl - 1);
      expect((await redeem({ ...inTime, company_id: company.company_id, authorization_token: inTimeToken })).success).toBe(1);
      service.clock.advance(1);
      expect(await redeem({ ...late, company_id: company.company_id, authorization_token: lateToken })).toEqual(invalid);
    } finally {
      service.clock.reset();
    }
  });

  it("refuses another company's token and an unknown one (19), a session token by its shape (1); another user's redeems to that user", async () => {
    const grace = await payer();
    const body = payment();
    const adaToken = await authorized(ada, body);
    const graceToken = await authorized(grace, body);
    const other = await newCompany(service);
    expect(await redeem({ ...body, company_id: other.company_id, authorization_token: adaToken })).toEqual(invalid);
    expect((await redeem({ ...body, company_id: company.company_id, authorization_token: ada.authorization.slice(6) })).error).toEqual([1]);
    expect(await redeem({ ...body, company_id: company.company_id, authorization_token: 'x'.repeat(43) })).toEqual(invalid);
    const graces = await redeem({ ...body, company_id: company.company_id, authorization_token: graceToken });
    expect(graces.data.user_id).toBe(grace.userId);
    const adas = await redeem({ ...body, company_id: company.company_id, authorization_token: adaToken });
    expect(adas.data.user_id).toBe(ada.userId);
  });

  it('gives exactly one success to 10 concurrent redeems of one authorization', async () => {
    const body = payment();
    const token = await authorized(ada, body);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => redeem({ ...body, company_id: company.company_id, authorization_token: token })),
    );
    expect(answers.filter((answer) => answer.success === 1)).toHaveLength(1);
    expect(answers.filter((answer) => answer.error[0] === 19)).toHaveLength(9);
  });

  it.each([
    ['a string', 'redeem this'],
    ['null', null],
    ['an array', [1]],
    ['an empty object', {}],
  ])('answers a payload that is %s with the envelope: 400, code 1', async (_, payload) => {
    const answer = await redeem(payload);
    expect(answer).toMatchObject({ success: 0, error: [1], data: { message: 'BAD_REQUEST', errors: expect.any(Array) } });
  });

  it('answers a malformed field with 400, code 1, on that field', async () => {
    const answer = await redeem({ ...payment({ amount: '1.00001' }), company_id: company.company_id, authorization_token: 'x' });
    expect(answer).toEqual({
      success: 0,
      error: [1],
      data: { message: 'BAD_REQUEST', errors: [{ code: 1, field: 'amount', detail: expect.any(String) }] },
    });
  });

  it('answers 503, code 16, in the envelope when DynamoDB cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const { port } = closed.address() as { port: number };
    await new Promise((done) => closed.close(done));
    const down = testService({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` });
    const answer = await down.invoked.redeemAuthorization(
      { ...payment(), company_id: company.company_id, authorization_token: 'x'.repeat(43) },
      lambdaContext(),
    );
    expect(answer).toEqual({ success: 0, error: [16], data: { message: 'SERVICE_UNAVAILABLE' } });
  });
});

describe('normalizeAmount', () => {
  it.each([
    ['10.50', '10.5'],
    ['0010.5000', '10.5'],
    ['10.00', '10'],
    ['10', '10'],
    ['0.0100', '0.01'],
    ['100', '100'],
  ])('spells %s as %s', (amount, normal) => expect(normalizeAmount(amount)).toBe(normal));
});

describe('logs', () => {
  it('carry the audit events and never the PIN, the token, or the amount with the payee', async () => {
    const capture = captureLogs();
    let token: string;
    try {
      const account = await payer();
      const body = payment({ amount: '734.19', payee: 'Payee 8842' });
      await authorize(account, { ...body, transaction_pin: WRONG_PIN });
      token = await authorized(account, body);
      await redeem({ ...body, amount: '734.2', company_id: company.company_id, authorization_token: token });
      await redeem({ ...body, company_id: company.company_id, authorization_token: token });
    } finally {
      capture.stop();
    }
    const text = capture.text();
    for (const event of [
      'transaction_authorization_refused',
      'transaction_authorized',
      'authorization_redeem_refused',
      'authorization_redeemed',
    ]) {
      expect(text).toContain(`"audit_event":"${event}"`);
    }
    expect(text).toContain('"outcome":"wrong_pin"');
    expect(text).toContain('"outcome":"other values"');
    for (const secret of [token, hashToken(token), '734.19', 'Payee 8842']) expect(text).not.toContain(secret);
    for (const pin of [WRONG_PIN, PIN]) expect(text).not.toMatch(standalone(pin));
  });
});

describe('DynamoDB requests per outcome (scripts/bench/minimum-round-trips.ts)', () => {
  // A warm company cache, as the table assumes (the tests' default keeps none).
  const warm = testService({ COMPANY_CACHE_SECONDS: '300' });
  let count = 0;
  let counting = false;
  beforeAll(() => {
    warm.app.table.client.middlewareStack.add(
      (next) => async (args) => {
        if (counting) count++;
        return next(args);
      },
      { step: 'finalizeRequest', name: 'countRequests' },
    );
  });

  async function counted(work: () => Promise<unknown>): Promise<number> {
    count = 0;
    counting = true;
    try {
      await work();
    } finally {
      counting = false;
    }
    return count;
  }

  it('makes the documented minimum for each outcome of both functions', async () => {
    const account = await payer(warm);
    const minimum = (name: 'transactionAuthorization' | 'redeemAuthorization', outcome: string) =>
      MINIMUM_ROUND_TRIPS[name]![outcome]!.requests;
    const body = payment();
    const authorizeRight = async () => (await authorize(account, body, company, warm)).body.data.authorization_token as string;
    let token = '';
    expect(await counted(async () => (token = await authorizeRight()))).toBe(minimum('transactionAuthorization', 'right PIN'));
    const wrong = () => authorize(account, { ...payment(), transaction_pin: WRONG_PIN }, company, warm);
    for (let left = 4; left > 0; left--) expect(await counted(wrong)).toBe(minimum('transactionAuthorization', 'wrong PIN (17)'));
    expect(await counted(wrong)).toBe(minimum('transactionAuthorization', 'wrong PIN that locks it (17, attempts_left 0)'));
    expect(await counted(wrong)).toBe(minimum('transactionAuthorization', 'locked (18)'));
    const payload = { ...body, company_id: company.company_id, authorization_token: token };
    expect(await counted(() => redeem({ ...payload, amount: '1' }, warm))).toBe(minimum('redeemAuthorization', 'other values (19)'));
    expect(await counted(() => redeem(payload, warm))).toBe(minimum('redeemAuthorization', 'redeemed'));
    expect(await counted(() => redeem(payload, warm))).toBe(minimum('redeemAuthorization', 'used (19)'));
    // From an SMS-strength session of a company that allows it: the day's SMS payments read, then counted with the authorization.
    const smsCompany = await createCompany(warm.app.table, warm.clock, 'sms payments', { sms_payment_limit: { EUR: '100' } });
    const smsAccount = await signUp(warm, smsCompany);
    const smsPayment = () =>
      invoke(warm.handlers.transactionAuthorization, {
        path: PATH,
        headers: { CompanyID: smsCompany.company_id, Authorization: smsAccount.authorization },
        body: { transaction_pin: PIN, ...payment() },
      });
    expect(await counted(smsPayment)).toBe(minimum('transactionAuthorization', 'SMS-strength session within the company’s limit'));
  });
});
