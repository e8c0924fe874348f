// Issue 37, the security review's findings 1 to 8, each proved where it was found: replays that
// outlived their credential, and races between two containers. A race is forced by holding one
// DynamoDB call of a second service on the same table (as a second Lambda container would be) while
// the first makes its change, then letting it go.
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../../lib/call.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { setStatusEndingSessions } from '../../lib/sessions/end-sessions.js';
import { emailClaimKey, phoneClaimKey, SESSION_PREFIX, sessionKey, userKey } from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { type Device, PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { createOwnTable } from '../harness/dynamodb-local.js';
import { scanItems } from '../harness/table-snapshot.js';
import {
  codeIn,
  expectFailure,
  type InProcessService,
  invoke,
  lambdaContext,
  logIn,
  newCompany,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  sampleRegistration,
  signUp,
  testService,
  tokenStatus,
} from '../helpers.js';

const tableName = await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-replays');
/** Two containers of one deployment: one table, one configuration, one clock. */
const service = testService({}, { tableName });
const racer = testService({}, { tableName });
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => {
  service.clock.reset();
  racer.clock.reset();
});

const headers = (authorization?: string, key?: string) => ({
  CompanyID: company.company_id,
  ...(authorization ? { Authorization: authorization } : {}),
  ...(key ? { 'Idempotency-Key': key } : {}),
});
const post = (on: InProcessService, name: keyof InProcessService['handlers'], body: unknown, authorization?: string, key?: string) =>
  invoke(on.handlers[name], { path: `/${name}`, headers: headers(authorization, key), body });

async function itemAt(key: { pk: string; sk: string }) {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }),
  );
  return Item;
}

const sidOf = (authorization: string) => decodeJwt(authorization.replace(/^Token /, '')).sid as string;

interface Hold {
  /** Resolves when the held call has arrived (and waits). */
  arrived: Promise<void>;
  release: () => void;
}

/**
 * Holds the first DynamoDB call of `on` that `matches` until released, as a container paused
 * between its read and its write; every other call passes.
 */
function holdOne(on: InProcessService, matches: (command: { constructor: { name: string }; input: unknown }) => boolean): Hold {
  const client = on.app.table.client;
  const send = client.send.bind(client);
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let held = false;
  client.send = (async (command: { constructor: { name: string }; input: unknown }, ...rest: unknown[]) => {
    if (!held && matches(command)) {
      held = true;
      arrive();
      await released;
      client.send = send;
    }
    return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  }) as typeof client.send;
  return { arrived, release };
}

const isTransaction = (command: { constructor: { name: string } }) => command.constructor.name === 'TransactWriteCommand';
/** The read of a phone or email claim: where a deletion or a disable learns which claims the user holds. */
const claimRead = (kind: 'PHONE' | 'EMAIL') => (command: { constructor: { name: string }; input: unknown }) =>
  command.constructor.name === 'GetCommand' && String((command.input as { Key?: { pk?: string } }).Key?.pk).includes(`#${kind}#`);

/**
 * What a phone change needs before it is sent: a fresh PIN login on the account's device (a session
 * begun by OTP login makes a change that waits, contract 3.11), and a proof of the new number with that token.
 */
async function readyToChangePhone(
  { device }: { device: Device },
  on: InProcessService = service,
): Promise<{ phone: string; fresh: string; proof: string }> {
  const login = await pinLogin(on, company, device, PINS.login_pin);
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const fresh = `Token ${login.body.data.token.token}`;
  const phone = randomPhoneNumber();
  const proof = await provePhone(on, company, phone, { authorization: fresh });
  return { phone, fresh, proof };
}

async function sendPhoneChange(ready: { phone: string; fresh: string; proof: string }, on: InProcessService = service) {
  return post(on, 'userPhoneChange', { dial_code: '+1', phone_number: ready.phone, phone_verification_token: ready.proof }, ready.fresh);
}

describe('1. a registration request kept for later', () => {
  it('never mints a session of its user once the key’s record is gone: the same request is a duplicate, 409 code 7', async () => {
    const body = sampleRegistration();
    const key = randomUUID();
    const first = await post(service, 'userRegister', body, undefined, key);
    expect(first.status).toBe(200);
    expect((await post(service, 'logout', { scope: 'all' }, `Token ${first.body.data.token.token}`)).status).toBe(200);
    service.clock.advance(301);
    expectFailure(await post(service, 'userRegister', body, undefined, key), 409, 20);
    // A day on, the key's record has expired: the same request is a new request, and a duplicate.
    service.clock.advance(IDEMPOTENCY_WINDOW_SECONDS);
    expectFailure(await post(service, 'userRegister', body, undefined, key), 409, 7);
    service.clock.advance(IDEMPOTENCY_WINDOW_SECONDS);
    expectFailure(await post(service, 'userRegister', body, undefined, key), 409, 7);
  });
});

describe('2. a refresh whose answer was lost', () => {
  const noGrace = testService({ REFRESH_REUSE_GRACE_SECONDS: '0' }, { tableName });

  it('sent again with its key gets the same successor, ends nothing and tells no theft (the grace off)', async () => {
    const account = await signUp(noGrace, company);
    const client = noGrace.app.table.client;
    const send = client.send.bind(client);
    // The spend is applied; its answer is lost on the way back.
    client.send = (async (command: { constructor: { name: string }; input: { UpdateExpression?: string } }, ...rest: unknown[]) => {
      const result = await (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
      if (command.input.UpdateExpression?.includes('refresh_hash = :next')) {
        client.send = send;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $fault: 'server' });
      }
      return result;
    }) as typeof client.send;
    const key = randomUUID();
    const lost = await post(noGrace, 'tokenRefresh', { refresh_token: account.refreshToken }, undefined, key);
    expectFailure(lost, 503, 16);
    noGrace.clock.advance(30);
    const retried = await post(noGrace, 'tokenRefresh', { refresh_token: account.refreshToken }, undefined, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const session = await itemAt(sessionKey(company.company_id, account.userId, sidOf(account.authorization)));
    expect(session?.ended_reason).toBeUndefined();
    expect(session?.refresh_hash).toBe(hashToken(retried.body.data.refresh_token));
    expect(await tokenStatus(noGrace, company, `Token ${retried.body.data.token.token}`)).toBe(200);
    // And with no key, the grace being off, the same spent token is reuse.
    expectFailure(await post(noGrace, 'tokenRefresh', { refresh_token: account.refreshToken }), 401, 4);
  });
});

describe('3. an OTP login to the old number racing a phone change', () => {
  it('gets no session once the change commits first: whoever holds the old number is cut off', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const oldPhone = String(account.registration.phone_number);
    const target = { dial_code: '+1', phone_number: oldPhone, user_type: 2, otp_type: 1 };
    // The SIM swapper asks for a code to the old number and sends it, on the second container.
    expect((await post(racer, 'loginPhone', target)).status).toBe(200);
    const code = codeIn(outboxMessages(racer.app.config.sms.outboxFile, `+1${oldPhone}`).at(-1));
    const grant = holdOne(racer, isTransaction);
    const login = post(racer, 'verifyOtp', { ...target, otp: code });
    await grant.arrived;
    // Meanwhile the account moves to a new number.
    service.clock.advance(61);
    const moved = await readyToChangePhone({ device });
    expect((await sendPhoneChange(moved)).status).toBe(200);
    grant.release();
    const answer = await login;
    expectFailure(answer, 401, 4);
    const user = await itemAt(userKey(company.company_id, account.userId));
    expect(user?.phone_e164).toBe(`+1${moved.phone}`);
    const sessions = (await scanItems(service.app.table.client, service.app.table.name, company.company_id)).filter(
      (item) => item.pk === userKey(company.company_id, account.userId).pk && item.sk.startsWith(SESSION_PREFIX) && !item.ended_reason,
    );
    // The change's own session is the one left.
    expect(sessions.map((item) => item.sk)).toEqual([sessionKey(company.company_id, account.userId, sidOf(moved.fresh)).sk]);
  });
});

describe('4. deletion or disable racing a phone or email change', () => {
  async function claimsOf(userId: string) {
    const items = await scanItems(service.app.table.client, service.app.table.name, company.company_id);
    return items.filter((item) => item.sk === 'CLAIM' && item.user_id === userId && /#(PHONE|EMAIL)#/.test(item.pk));
  }

  it('a deletion held while the number changes reads again: status 4, no claim held, the new number free', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    // A fresh strong session deletes at once (an SMS-strength one holds it: contract 3.15, second reading).
    const deleting = await strongSession(racer, company, device);
    service.clock.advance(61);
    const moved = await readyToChangePhone({ device });
    // Held after it read the user (the old number), before it reads which claims are theirs.
    const deletion = holdOne(racer, claimRead('PHONE'));
    const deleted = post(racer, 'userDelete', {}, deleting);
    await deletion.arrived;
    expect((await sendPhoneChange(moved)).status).toBe(200);
    deletion.release();
    expect((await deleted).status).toBe(200);
    const user = await itemAt(userKey(company.company_id, account.userId));
    expect(user?.status_id).toBe(UserStatus.DELETION_REQUESTED);
    expect(await itemAt(phoneClaimKey(company.company_id, `+1${moved.phone}`, 2))).toBeUndefined();
    expect(await claimsOf(account.userId)).toEqual([]);
  });

  it('a deletion held while the email changes reads again: no email claim left held', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const deleting = await strongSession(racer, company, device);
    // The email moves at once from a strong session too (an SMS-strength one's would wait).
    const changing = await strongSession(service, company, device);
    const deletion = holdOne(racer, claimRead('EMAIL'));
    const deleted = post(racer, 'userDelete', {}, deleting);
    await deletion.arrived;
    const email = `moved.${randomPhoneNumber()}@example.com`;
    expect((await post(service, 'userProfileUpdate', { email }, changing)).status).toBe(200);
    deletion.release();
    expect((await deleted).status).toBe(200);
    expect(await itemAt(emailClaimKey(company.company_id, email, 2))).toBeUndefined();
    expect(await claimsOf(account.userId)).toEqual([]);
  });

  it('a disable held while the number changes reads again: the new claim carries the disabled status', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const moved = await readyToChangePhone({ device });
    const disable = holdOne(racer, claimRead('PHONE'));
    const disabled = setStatusEndingSessions(racer.app, company.company_id, account.userId, UserStatus.DISABLED);
    await disable.arrived;
    expect((await sendPhoneChange(moved)).status).toBe(200);
    disable.release();
    await disabled;
    expect((await itemAt(userKey(company.company_id, account.userId)))?.status_id).toBe(UserStatus.DISABLED);
    expect((await itemAt(phoneClaimKey(company.company_id, `+1${moved.phone}`, 2)))?.status_id).toBe(UserStatus.DISABLED);
  });
});

describe('5. a phone change refused with more sessions than one transaction ends', () => {
  it('ends none of them', async () => {
    const account = await signUp(service, company);
    const now = epochSeconds(service.clock);
    const items = Array.from({ length: 24 }, () => ({
      ...sessionKey(company.company_id, account.userId, hashToken(randomUUID())),
      user_type: 2,
      created_at: now,
      last_used_at: now,
      expires_at: now + 3600,
    }));
    await service.app.table.client.send(
      new BatchWriteCommand({ RequestItems: { [service.app.table.name]: items.map((Item) => ({ PutRequest: { Item } })) } }),
    );
    // The new number is a proven user's: the change is refused.
    const holder = await signUp(service, company);
    const held = String(holder.registration.phone_number);
    await logIn(service, company, holder);
    const fresh = await logIn(service, company, account);
    service.clock.advance(61);
    const proof = await provePhone(service, company, held, { authorization: fresh });
    // From an OTP login's session, with the login PIN (contract 3.11, round 5): the held number is refused before anything waits.
    const body = { dial_code: '+1', phone_number: held, phone_verification_token: proof, login_pin: account.registration.login_pin };
    expectFailure(await post(service, 'userPhoneChange', body, fresh), 409, 7);
    for (const item of items) expect((await itemAt({ pk: item.pk, sk: item.sk }))?.ended_reason).toBeUndefined();
  });
});

describe('6. an Authorization header on a route that takes no token', () => {
  it('does not lift the 300 s limit on a replayed credential', async () => {
    const account = await signUp(service, company);
    const key = randomUUID();
    const body = { refresh_token: account.refreshToken };
    const anyToken = 'Token not-a-token-at-all';
    expect((await post(service, 'tokenRefresh', body, anyToken, key)).status).toBe(200);
    expect((await post(service, 'tokenRefresh', body, anyToken, key)).status).toBe(200);
    service.clock.advance(301);
    expectFailure(await post(service, 'tokenRefresh', body, anyToken, key), 409, 20);
    expectFailure(await post(service, 'tokenRefresh', body, 'Token something-else', key), 409, 20);
  });
});

describe('7. a request that ended its own session, sent again with its key', () => {
  it('a logout answers its first outcome, not 401; another key or no key still 401', async () => {
    const account = await signUp(service, company);
    const key = randomUUID();
    const first = await post(service, 'logout', {}, account.authorization, key);
    expect(first.status).toBe(200);
    const again = await post(service, 'logout', {}, account.authorization, key);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectFailure(await post(service, 'logout', {}, account.authorization, randomUUID()), 401, 4);
    expectFailure(await post(service, 'logout', {}, account.authorization), 401, 4);
    // Another request under that key: not the first one's answer.
    expectFailure(await post(service, 'logout', { scope: 'all' }, account.authorization, key), 409, 20);
  });

  it('a deletion answers its first outcome (its erase_after), not 401', async () => {
    const { device } = await signUpWithDevice(service, company);
    const fresh = await strongSession(service, company, device);
    const key = randomUUID();
    const first = await post(service, 'userDelete', {}, fresh, key);
    expect(first.status).toBe(200);
    const again = await post(service, 'userDelete', {}, fresh, key);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
  });
});

describe('8. an authorization whose user is no longer active', () => {
  it('is not redeemed once an operator disabled the user: code 19', async () => {
    // Approved from a strong session (a PIN login on the device registration bound): an SMS-strength one approves nothing here.
    const { account: owner, device } = await signUpWithDevice(service, company);
    const account = { ...owner, authorization: await strongSession(service, company, device) };
    const payment = { amount: '12.00', currency: 'EUR', payee: 'Acme', reference: `order-${randomUUID()}` };
    const authorized = await post(service, 'transactionAuthorization', { transaction_pin: '1397', ...payment }, account.authorization);
    expect(authorized.status).toBe(200);
    await setStatusEndingSessions(service.app, company.company_id, account.userId, UserStatus.DISABLED);
    const answer = (await service.invoked.redeemAuthorization(
      { company_id: company.company_id, authorization_token: authorized.body.data.authorization_token, ...payment },
      { ...lambdaContext(), awsRequestId: randomUUID() },
    )) as { success: number; error: number[] };
    expect(answer).toMatchObject({ success: 0, error: [19] });
  });
});
