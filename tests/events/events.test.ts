// The events of API contract 3.13, end to end on this machine's real parts: the service writes to
// DynamoDB Local, the table's stream is read as Lambda's event source reads it, the publisher puts
// the events with the real EventBridge client on a loopback EventBridge, and what it cannot put
// goes with the real SQS client to the dead-letter queue. Every event is the change a committed
// write made; a refused request has none; a function that dies after its write still has its event.

import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { updateCompanySettings } from '../../lib/companies/companies.js';
import { EVENT_TYPES } from '../../lib/events/event-types.js';
import { eventsOfRecord } from '../../lib/events/stream-events.js';
import { sessionKey } from '../../lib/store/keys.js';
import { touchSession } from '../../lib/store/session-store.js';
import { main as disableUser } from '../../scripts/disable-user.js';
import { main as restoreUser } from '../../scripts/restore-user.js';
import { deleteHeldAndLand } from '../account/deletion-helpers.js';
import { staffMember } from '../admin/staff.js';
import { freshOtpSession, PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { createOwnTable } from '../harness/dynamodb-local.js';
import { type DeliveredEvent, type FakeEventBridge, startFakeEventBridge } from '../harness/eventbridge-fake.js';
import { SoftAuthenticator } from '../harness/soft-authenticator.js';
import { type StreamPoller, startStreamPoller } from '../harness/stream-poller.js';
import {
  type Account,
  type InProcessService,
  invoke,
  lambdaContext,
  logIn,
  newCompany,
  newEmployee,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  runOperator,
  sampleRegistration,
  sessionIdOf,
  signUp,
  testEnvironment,
  testService,
} from '../helpers.js';
import { eventSchemaProblems } from './event-schema.js';

// Three puts of an entry before it is dead-lettered (5 deployed): the refusals below take less waiting.
const PASSKEY_ORIGIN = 'https://wallet.example.com';
const SETTINGS = { EVENT_BUS_NAME: 'wallet-auth-test', ACCOUNT_ERASE_AFTER_DAYS: '0', EVENTS_MAX_ATTEMPTS: '3' };
let table: string;
let fake: FakeEventBridge;
let service: InProcessService;
let poller: StreamPoller;
let company: Company;

beforeAll(async () => {
  const endpoint = inject('dynamodbEndpoint');
  // A table of this file's own: its stream holds this file's writes only.
  table = await createOwnTable(endpoint, 'wallet-auth-events');
  fake = await startFakeEventBridge({ busName: SETTINGS.EVENT_BUS_NAME });
  service = testService({ ...SETTINGS, EVENTBRIDGE_ENDPOINT: fake.endpoint, EVENTS_DLQ_URL: fake.queueUrl }, { tableName: table });
  const publish = service.streamed.eventsPublish;
  poller = await startStreamPoller({
    endpoint,
    tableName: table,
    consumer: (event) => publish(event, lambdaContext(30_000)),
    idleMs: 25,
    retryBaseMs: 20,
    retryMaxMs: 200,
    maxAttempts: 1000,
  });
  company = await newCompany(service);
  // Passkeys (contract 3.16), set before the company's first request (no function holds it yet).
  await updateCompanySettings(service.app.table, service.clock, company.company_id, {
    webauthn: { rp_id: 'wallet.example.com', origins: [PASSKEY_ORIGIN] },
  });
});

afterAll(async () => {
  await poller?.close();
  await fake?.close();
});

const headers = (authorization?: string) => ({ CompanyID: company.company_id, ...(authorization ? { Authorization: authorization } : {}) });
const post = (name: keyof InProcessService['handlers'], authorization: string | undefined, body: Record<string, unknown>) =>
  invoke(service.handlers[name], { path: `/${name}`, headers: headers(authorization), body });
const operator = (main: typeof disableUser, args: string[]) => runOperator(main, args, testEnvironment(SETTINGS, { tableName: table }));

/** Every event published so far for a user of this file's company, once each (as a subscriber keeps them). */
async function eventsOf(userId: string): Promise<DeliveredEvent[]> {
  await poller.drain(20_000);
  const seen = new Set<string>();
  return fake.events.filter((event) => {
    const detail = event.detail as { company_id: string; user_id: string; event_id: string };
    if (detail.company_id !== company.company_id || detail.user_id !== userId || seen.has(detail.event_id)) return false;
    seen.add(detail.event_id);
    return true;
  });
}

const summary = (events: DeliveredEvent[]) =>
  events.map((event) => {
    const { event_id: _id, company_id: _company, user_id: _user, occurred_at: _at, seq, record_hash: hash, ...fields } = event.detail;
    // A staff record's place in its company's chain: told by every admin.action, compared in tests/admin/staff-chain.test.ts.
    if (event['detail-type'] === 'admin.action')
      expect([typeof seq, String(hash)]).toEqual(['number', expect.stringMatching(/^[0-9a-f]{64}$/)]);
    return { type: event['detail-type'], ...fields };
  });

/** A login once the send interval has passed since the last one. */
function nextLogIn(account: Account): Promise<string> {
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  return logIn(service, company, account);
}

const freshSession = (account: Account) => freshOtpSession(service, company, account);

/** An employee the operator made admin, with a strong session (what the back office asks for). */
async function adminSession(): Promise<{ admin: Account; session: string }> {
  const admin = await staffMember(service, company, 'admin');
  return { admin, session: admin.session };
}

describe('the events of a user’s life (API contract 3.13)', () => {
  it('are exactly the committed changes, with the fields of 3.13 and no personal value', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const used: string[] = [account.authorization, account.refreshToken, PINS.login_pin, PINS.transaction_pin, device.publicKey];
    for (const field of ['phone_number', 'email', 'first_name', 'last_name', 'password']) used.push(String(account.registration[field]));

    // A profile change from the registration's session (SMS-strength): the name held (contract 3.15), the
    // image at once; a refused one (a field the user may not change) writes nothing.
    const profileChange = await post('userProfileUpdate', account.authorization, {
      first_name: 'Ravindra',
      image: 'https://example.com/r.png',
    });
    expect(profileChange.body.data.pending).toBe(1);
    expect((await post('userProfileUpdate', account.authorization, { status_id: 2 })).status).toBe(400);
    used.push('Ravindra');

    // A second session, logged out.
    const second = await nextLogIn(account);
    expect((await post('logout', second, {})).status).toBe(200);
    expect((await post('logout', second, {})).status).toBe(401);

    // A new number asked for from an OTP login: it waits, and is cancelled.
    const otpSession = await freshSession(account);
    const pendingNumber = randomPhoneNumber();
    used.push(pendingNumber, `+1${pendingNumber}`);
    const pendingProof = await provePhone(service, company, pendingNumber, { authorization: otpSession });
    const pending = await post('userPhoneChange', otpSession, {
      dial_code: '+1',
      phone_number: pendingNumber,
      phone_verification_token: pendingProof,
      login_pin: PINS.login_pin,
    });
    expect(pending.body.data.pending).toBe(1);
    const changeId = pending.body.data.change_id;
    expect((await post('userPhoneChangeCancel', otpSession, { change_id: changeId })).status).toBe(200);

    // The login PIN locked by wrong PINs from that session (no device: a tally of its own, contract 3.15).
    for (let attempt = 0; attempt < service.app.config.pinMaxFailures; attempt++) {
      expect((await post('changePin', otpSession, { pin_type: 1, current_pin: '0000', new_pin: '8642' })).body.error).toEqual([17]);
    }

    // A new number from a PIN login on the device (strong): fresh proof of the holder and of the number; the other sessions end.
    const onPin = await pinLogin(service, company, device, PINS.login_pin);
    const pinSession = `Token ${onPin.body.data.token.token}`;
    const newNumber = randomPhoneNumber();
    used.push(newNumber, `+1${newNumber}`);
    const proof = await provePhone(service, company, newNumber, { authorization: pinSession });
    expect(
      (await post('userPhoneChange', pinSession, { dial_code: '+1', phone_number: newNumber, phone_verification_token: proof })).status,
    ).toBe(200);
    for (const message of outboxMessages(service.app.config.sms.outboxFile, `+1${newNumber}`))
      used.push(message.match(/\d{4,8}/)?.[0] ?? '');
    const moved = { ...account, registration: { ...account.registration, phone_number: newNumber } };
    const fresh = await freshSession(moved);

    // Another PIN login on the device, strong: the login PIN changed from it ends every other session.
    const onDevice = await pinLogin(service, company, device, PINS.login_pin);
    expect(onDevice.status).toBe(200);
    const deviceSession = `Token ${onDevice.body.data.token.token}`;
    const third = await nextLogIn(moved);
    expect((await post('changePin', deviceSession, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8642' })).status).toBe(200);

    // The device removed from its own strong session: that session ends with it.
    expect((await post('devicesRemove', deviceSession, { device_key: device.deviceKey })).status).toBe(200);

    // Deleted from an OTP session: held, then landed once due (every session ends), restored by the
    // operator, deleted again the same way and erased (contract 3.15, second reading).
    const beforeDelete = await freshSession(moved);
    const deletion = await deleteHeldAndLand(service, company, moved, beforeDelete);
    expect((await operator(restoreUser, ['--company', company.company_id, '--user', account.userId])).code).toBe(0);
    const again = await deleteHeldAndLand(service, company, moved, await freshSession(moved));
    service.clock.advance(1);
    await service.scheduled.accountsErase({}, lambdaContext(60_000));

    const events = await eventsOf(account.userId);
    const sid = (authorization: string) => sessionIdOf(authorization);
    const expected = [
      { type: 'user.registered' },
      // Bound at registration: settled (contract 3.15).
      { type: 'device.added', settled: 1 },
      {
        type: 'user.change_pending',
        change_id: profileChange.body.data.change_id,
        kind: 'profile',
        effective_at: profileChange.body.data.effective_at,
        via: 'user',
      },
      { type: 'user.profile_updated', changed: ['image'] },
      { type: 'session.ended', sid: sid(second), reason: 'logout' },
      { type: 'user.phone_change_pending', change_id: changeId, effective_at: pending.body.data.effective_at, via: 'user' },
      { type: 'user.change_pending', change_id: changeId, kind: 'phone', effective_at: pending.body.data.effective_at, via: 'user' },
      { type: 'user.phone_change_cancelled', change_id: changeId },
      { type: 'user.change_cancelled', change_id: changeId, kind: 'phone', reason: 'cancelled' },
      { type: 'pin.locked', pin_type: 'login' },
      { type: 'user.phone_changed' },
      { type: 'session.ended', sid: sid(account.authorization), reason: 'phone_changed' },
      { type: 'session.ended', sid: sid(otpSession), reason: 'phone_changed' },
      { type: 'session.ended', sid: sid(pinSession), reason: 'pin_changed' },
      { type: 'session.ended', sid: sid(fresh), reason: 'pin_changed' },
      { type: 'session.ended', sid: sid(third), reason: 'pin_changed' },
      { type: 'device.removed' },
      { type: 'session.ended', sid: sid(deviceSession), reason: 'device_removed' },
      { type: 'user.change_pending', change_id: deletion.changeId, kind: 'delete', effective_at: deletion.effectiveAt, via: 'user' },
      { type: 'user.deleted', erase_after: expect.any(Number) },
      // The held name change still waiting ends with the account.
      { type: 'user.change_cancelled', change_id: profileChange.body.data.change_id, kind: 'profile', reason: 'void' },
      { type: 'session.ended', sid: sid(beforeDelete), reason: 'deleted' },
      { type: 'user.restored' },
      { type: 'user.change_pending', change_id: again.changeId, kind: 'delete', effective_at: again.effectiveAt, via: 'user' },
      { type: 'user.deleted', erase_after: expect.any(Number) },
      { type: 'session.ended', sid: expect.stringMatching(/^[0-9a-f]{32}$/), reason: 'deleted' },
      { type: 'user.erased' },
    ];
    // Order is per user only as far as occurred_at says (3.13): compared as a set, each once.
    expect(summary(events)).toHaveLength(expected.length);
    expect(summary(events)).toEqual(expect.arrayContaining(expected));
    for (const event of events) {
      expect(event).toMatchObject({ source: 'wallet.auth', 'detail-type': expect.any(String) });
      expect(event.detail).toMatchObject({
        event_id: expect.any(String),
        company_id: company.company_id,
        user_id: account.userId,
        occurred_at: expect.any(Number),
      });
    }
    expect(new Set(events.map((event) => event.detail.event_id)).size).toBe(events.length);
    // Nothing the walk-through sent or was sent is in any event. The random UUIDs (each event's
    // own id and event_id) are left out: one of their 4-digit groups may be a PIN by chance (1 in 65,536).
    const published = JSON.stringify(fake.events).replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, (uuid) =>
      used.includes(uuid) ? uuid : '<uuid>',
    );
    // Whole values only: a 4-digit PIN may well stand inside a hex id or a time.
    const standing = (value: string) => new RegExp(`(?<![0-9A-Za-z])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`);
    for (const value of used.filter((value) => value.length >= 4)) expect(published, value).not.toMatch(standing(value));
  });

  it('tells a disable, a PIN change, a reused refresh token and a reclaim by the sessions they end', async () => {
    const disabled = await signUp(service, company);
    expect((await operator(disableUser, ['--company', company.company_id, '--user', disabled.userId])).code).toBe(0);

    const reused = await signUp(service, company);
    const refresh = (token: string) => post('tokenRefresh', undefined, { refresh_token: token });
    expect((await refresh(reused.refreshToken)).status).toBe(200);
    service.clock.advance(service.app.config.refreshReuseGraceSeconds + 1);
    expect((await refresh(reused.refreshToken)).status).toBe(401);

    const holder = await signUp(service, company);
    const phone = String(holder.registration.phone_number);
    const proof = await provePhone(service, company, phone);
    const taker = await post('userRegister', undefined, sampleRegistration({ phone_number: phone, phone_verification_token: proof }));
    expect(taker.status).toBe(200);

    expect(summary(await eventsOf(disabled.userId))).toEqual([
      { type: 'user.registered' },
      { type: 'user.disabled' },
      { type: 'session.ended', sid: sessionIdOf(disabled.authorization), reason: 'disabled' },
    ]);
    expect(summary(await eventsOf(reused.userId))).toEqual([
      { type: 'user.registered' },
      { type: 'session.ended', sid: sessionIdOf(reused.authorization), reason: 'refresh_reuse' },
    ]);
    expect(summary(await eventsOf(holder.userId))).toEqual([
      { type: 'user.registered' },
      { type: 'session.ended', sid: sessionIdOf(holder.authorization), reason: 'reclaimed' },
    ]);
    expect(summary(await eventsOf(taker.body.data.user_id))).toEqual([{ type: 'user.registered' }]);
  });

  it('tells a passkey added, cloned (a counter gone back) and removed, with the session it began', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    const key = new SoftAuthenticator({ keepsCounter: true, backedUp: false });
    const options = await post('passkeysRegisterOptions', strong, {});
    const registered = await post('passkeysRegister', strong, key.create(options.body.data.options, PASSKEY_ORIGIN));
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const passkeyId = registered.body.data.passkey_id;
    const loginOptions = async () => (await post('passkeysLoginOptions', undefined, {})).body.data.options;
    const login = await post('passkeysLogin', undefined, key.get(await loginOptions(), PASSKEY_ORIGIN));
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect((await post('passkeysLogin', undefined, key.get(await loginOptions(), PASSKEY_ORIGIN, { counter: 1 }))).status).toBe(401);
    expect((await post('passkeysRemove', strong, { passkey_id: passkeyId })).status).toBe(200);
    const told = summary(await eventsOf(account.userId)).filter(
      (event) => String(event.type).startsWith('passkey.') || (event as { reason?: string }).reason === 'passkey_removed',
    );
    expect(told).toEqual([
      { type: 'passkey.added', passkey_id: passkeyId },
      { type: 'passkey.cloned', passkey_id: passkeyId },
      { type: 'passkey.removed', passkey_id: passkeyId },
      { type: 'session.ended', sid: sessionIdOf(`Token ${login.body.data.token.token}`), reason: 'passkey_removed' },
    ]);
  });

  it('tells each back-office action by admin.action: who did what to whom, never why', async () => {
    const { admin, session } = await adminSession();
    const agent = await newEmployee(service, company);
    const reason = `ticket ${randomUUID()}`;
    expect((await post('adminEmployeeRole', session, { user_id: agent.userId, role: 'support', reason })).status).toBe(200);
    // One transaction's changes come in no set order: compared as sets.
    const sorted = (events: object[]) => events.map((event) => JSON.stringify(event)).sort();
    expect(sorted(summary(await eventsOf(agent.userId)))).toEqual(
      sorted([
        { type: 'user.registered' },
        { type: 'admin.action', actor_id: 'operator', action: 'employee_register' },
        { type: 'admin.action', actor_id: admin.userId, action: 'role_grant' },
      ]),
    );
    expect(summary(await eventsOf(admin.userId))).toContainEqual({ type: 'admin.action', actor_id: 'operator', action: 'role' });
    expect(JSON.stringify(fake.events)).not.toContain(reason);
  });

  it('tells a view and a change of the company’s settings by admin.action naming no user, never why; a refused change by nothing', async () => {
    const { admin, session } = await adminSession();
    const reason = `ticket ${randomUUID()}`;
    expect((await post('adminCompanyView', session, { reason })).status).toBe(200);
    expect((await post('adminCompanyUpdate', session, { limits: { sms_per_hour: 900 }, reason })).status).toBe(200);
    const tooLong = `{code} ${'Keep it to yourself. '.repeat(16)}`;
    expect((await post('adminCompanyUpdate', session, { sms_text: { templates: { en: tooLong } }, reason })).status).toBe(400);
    await poller.drain(20_000);
    const byAdmin = fake.events.filter(
      (event) => event['detail-type'] === 'admin.action' && (event.detail as { actor_id: string }).actor_id === admin.userId,
    );
    const once = [...new Map(byAdmin.map((event) => [(event.detail as { event_id: string }).event_id, event])).values()];
    expect(summary(once)).toEqual([
      { type: 'admin.action', actor_id: admin.userId, action: 'company_view' },
      { type: 'admin.action', actor_id: admin.userId, action: 'company_update' },
    ]);
    for (const event of once) expect(Object.keys(event.detail)).not.toContain('user_id');
    expect(JSON.stringify(fake.events)).not.toContain(reason);
    expect((await post('adminCompanyUpdate', session, { limits: { sms_per_hour: null }, reason: 'put back' })).status).toBe(200);
  });

  it('tells the back office’s disable, enable and end of sessions: user.disabled, user.enabled, session.ended support', async () => {
    const { admin, session } = await adminSession();
    const customer = await signUp(service, company);
    const status = (value: string) => post('adminUsersStatus', session, { user_id: customer.userId, status: value, reason: 'ticket 1' });
    expect((await status('disabled')).status).toBe(200);
    expect((await status('active')).status).toBe(200);
    const again = await nextLogIn(customer);
    const ended = await post('adminUsersSessionsEnd', session, { user_id: customer.userId, sid: sessionIdOf(again), reason: 'ticket 2' });
    expect(ended.status).toBe(200);
    const action = { type: 'admin.action', actor_id: admin.userId };
    // One transaction's changes come in no set order: compared as sets.
    const sorted = (events: object[]) => events.map((event) => JSON.stringify(event)).sort();
    expect(sorted(summary(await eventsOf(customer.userId)))).toEqual(
      sorted([
        { type: 'user.registered' },
        { type: 'user.disabled' },
        { type: 'session.ended', sid: sessionIdOf(customer.authorization), reason: 'disabled' },
        { ...action, action: 'status' },
        { type: 'user.enabled' },
        { ...action, action: 'status' },
        { type: 'session.ended', sid: sessionIdOf(again), reason: 'support' },
        { ...action, action: 'sessions_end' },
      ]),
    );
  });

  it('has the event of a change whose function died right after its write, and none for a write refused', async () => {
    const [account, other] = [await signUp(service, company), await signUp(service, company)];
    const client = service.app.table.client;
    const send = client.send.bind(client);
    // The transaction commits, then the function dies before it answers (or could publish anything).
    client.send = (async (command: { constructor: { name: string } }) => {
      const result = await send(command as never);
      if (command.constructor.name === 'TransactWriteCommand') throw new Error('the function died after its write');
      return result;
    }) as typeof client.send;
    let died: Awaited<ReturnType<typeof post>>;
    try {
      died = await post('userProfileUpdate', account.authorization, { email: `moved.${randomPhoneNumber()}@example.com` });
    } finally {
      client.send = send;
    }
    expect(died.status).toBeGreaterThanOrEqual(500);
    // Refused by the transaction's condition (the email is another user's): nothing committed.
    const taken = await post('userProfileUpdate', account.authorization, { email: other.registration.email });
    expect(taken.status).toBe(409);
    // From the registration's session the email waits (contract 3.15): the hold is what committed.
    expect(summary(await eventsOf(account.userId))).toEqual([
      { type: 'user.registered' },
      { type: 'user.change_pending', change_id: expect.any(String), kind: 'profile', effective_at: expect.any(Number), via: 'user' },
    ]);
  });
});

describe('sessions that end with no event', () => {
  it('none for a session past its idle limit that a logout sweeps up, none for a write to a session already ended', async () => {
    const account = await signUp(service, company);
    // Fifteen days on, the registration's session is past its 14-day idle limit; a new login is live.
    service.clock.advance(15 * 24 * 3600);
    const live = await nextLogIn(account);
    expect((await post('logout', live, { scope: 'all' })).body.data.revoked).toBe(1);
    // A use recorded on the ended session (its read came before the end) changes nothing that is news.
    const key = sessionKey(company.company_id, account.userId, sessionIdOf(live));
    const { Item } = await service.app.table.client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    await touchSession(service.app.table, key, Item!.last_used_at, Item!.last_used_at + 3600);
    expect(summary(await eventsOf(account.userId))).toEqual([
      { type: 'user.registered' },
      { type: 'session.ended', sid: sessionIdOf(live), reason: 'logout_all' },
    ]);
  });

  it('none for the end of an opaque token’s session: its id is a hash of the token, and no verifier knows it', () => {
    const key = { pk: `C#${company.company_id}#USER#${'ab'.repeat(16)}`, sk: `SESSION#${'cd'.repeat(32)}` };
    const live = { ...key, expires_at: 4_000_000_000, last_used_at: 1_795_000_000, user_type: 2 };
    const ended = { ...live, ended_reason: 'logout', ended_at_ms: 1_795_000_001_000 };
    const record = (sk: string) => ({
      eventID: 'opaque-1',
      eventName: 'MODIFY' as const,
      dynamodb: {
        Keys: marshall({ ...key, sk }) as never,
        OldImage: marshall({ ...live, sk }) as never,
        NewImage: marshall({ ...ended, sk }) as never,
      },
    });
    expect(eventsOfRecord(record(key.sk), service.app.config)).toEqual([]);
    // The same end of a signed token's session is published.
    expect(eventsOfRecord(record(`SESSION#${'cd'.repeat(16)}`), service.app.config).map((event) => event.type)).toEqual(['session.ended']);
  });

  it('none for an item DynamoDB itself deleted (a TTL)', () => {
    const keys = { pk: { S: `C#${company.company_id}#USER#${'ab'.repeat(16)}` }, sk: { S: 'DEVICE#key' } };
    const removal = { eventID: 'ttl-1', eventName: 'REMOVE' as const, dynamodb: { Keys: keys, OldImage: keys } };
    const limits = service.app.config;
    expect(eventsOfRecord({ ...removal, userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } }, limits)).toEqual([]);
    expect(eventsOfRecord(removal, limits).map((event) => event.type)).toEqual(['device.removed']);
  });

  it('a pending phone change: pending when stored, cancelled when replaced, cancelled or void; nothing when it completes (deleted)', () => {
    const key = { pk: `C#${company.company_id}#USER#${'ab'.repeat(16)}`, sk: 'CHANGE#phone' };
    const first = {
      ...key,
      change_id: '1'.repeat(32),
      effective_at: 1_795_086_400,
      created_at: 1_795_000_000,
      via: 'user',
      expires_at: 1_795_691_200,
    };
    const second = { ...first, change_id: '2'.repeat(32), created_at: 1_795_000_100 };
    const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', before?: object, after?: object) => ({
      eventID: `pending-${eventName}`,
      eventName,
      dynamodb: {
        Keys: marshall(key) as never,
        ...(before ? { OldImage: marshall(before) as never } : {}),
        ...(after ? { NewImage: marshall(after) as never } : {}),
      },
    });
    const limits = service.app.config;
    const of = (events: ReturnType<typeof eventsOfRecord>) =>
      events.map(
        ({ type, detail }) => ({ type, ...detail }) as { type: string; change_id?: string; reason?: string } & Record<string, unknown>,
      );
    // A phone change is told twice: as 3.11's phone change and as 3.15's change of kind phone (items of round 5 had no kind).
    expect(of(eventsOfRecord(record('INSERT', undefined, first), limits))).toEqual([
      expect.objectContaining({
        type: 'user.phone_change_pending',
        change_id: first.change_id,
        effective_at: first.effective_at,
        via: 'user',
      }),
      expect.objectContaining({
        type: 'user.change_pending',
        change_id: first.change_id,
        kind: 'phone',
        effective_at: first.effective_at,
        via: 'user',
      }),
    ]);
    const types = (events: ReturnType<typeof of>) => events.map(({ type, change_id, reason }) => [type, change_id, reason]);
    expect(types(of(eventsOfRecord(record('MODIFY', first, second), limits)))).toEqual([
      ['user.phone_change_cancelled', first.change_id, undefined],
      ['user.change_cancelled', first.change_id, 'replaced'],
      ['user.phone_change_pending', second.change_id, undefined],
      ['user.change_pending', second.change_id, undefined],
    ]);
    for (const reason of ['cancelled', 'void']) {
      const ended = { ...first, ended_reason: reason, ended_at: 1_795_000_500 };
      expect(of(eventsOfRecord(record('MODIFY', first, ended), limits))).toEqual([
        expect.objectContaining({ type: 'user.phone_change_cancelled', change_id: first.change_id, occurred_at: 1_795_000_500_000 }),
        expect.objectContaining({ type: 'user.change_cancelled', change_id: first.change_id, kind: 'phone', reason }),
      ]);
      // A new change replacing an ended one is pending only.
      expect(of(eventsOfRecord(record('MODIFY', ended, second), limits)).map(({ type }) => type)).toEqual([
        'user.phone_change_pending',
        'user.change_pending',
      ]);
    }
    expect(eventsOfRecord(record('REMOVE', first), limits)).toEqual([]);
    // A recovery by support (contract 3.14) is pending from its approval, not its start; one
    // cancelled or replaced before approval was never pending, so nothing is cancelled.
    const awaiting = { ...first, via: 'support', effective_at: 1_795_086_400, expires_at: 1_795_086_400, awaiting_approval: 1 };
    const approved = { ...first, via: 'support', approved_at: 1_795_003_600, effective_at: 1_795_090_000 };
    expect(eventsOfRecord(record('INSERT', undefined, awaiting), limits)).toEqual([]);
    expect(of(eventsOfRecord(record('MODIFY', awaiting, approved), limits))[0]).toEqual(
      expect.objectContaining({
        type: 'user.phone_change_pending',
        change_id: first.change_id,
        effective_at: 1_795_090_000,
        via: 'support',
        occurred_at: 1_795_003_600_000,
      }),
    );
    expect(eventsOfRecord(record('MODIFY', awaiting, { ...awaiting, ended_reason: 'cancelled', ended_at: 1 }), limits)).toEqual([]);
    expect(of(eventsOfRecord(record('MODIFY', awaiting, second), limits)).map(({ type }) => type)).toEqual([
      'user.phone_change_pending',
      'user.change_pending',
    ]);
    // Another kind is told as a change only: a PIN reset held, then undone by the right PIN on a settled device.
    const pinKey = { pk: key.pk, sk: 'CHANGE#login_pin' };
    const held = {
      ...pinKey,
      change_id: '3'.repeat(32),
      kind: 'login_pin',
      via: 'user',
      acr: 'sms',
      created_at: 1_795_000_000,
      effective_at: 1_795_086_400,
    };
    const pinRecord = (eventName: 'INSERT' | 'MODIFY', before?: object, after?: object) => ({
      ...record(eventName, before, after),
      dynamodb: { ...record(eventName, before, after).dynamodb, Keys: marshall(pinKey) as never },
    });
    expect(types(of(eventsOfRecord(pinRecord('INSERT', undefined, held), limits)))).toEqual([
      ['user.change_pending', held.change_id, undefined],
    ]);
    const proven = { ...held, ended_reason: 'pin_proven', ended_at: 1_795_000_900 };
    expect(types(of(eventsOfRecord(pinRecord('MODIFY', held, proven), limits)))).toEqual([
      ['user.change_cancelled', held.change_id, 'pin_proven'],
    ]);
  });
});

describe('the publisher', () => {
  it('puts again what EventBridge throttled or refused in part, each event once', async () => {
    // Fewer failures than an entry's attempts (EVENTS_MAX_ATTEMPTS, 3 here), however they fall.
    fake.faults.failNextCalls = 1;
    fake.faults.failNextEntries = 1;
    const accounts = await Promise.all(Array.from({ length: 6 }, () => signUp(service, company)));
    await poller.drain(20_000);
    expect(fake.deadLetters.map((letter) => letter.body)).toEqual([]);
    for (const account of accounts) expect(summary(await eventsOf(account.userId))).toEqual([{ type: 'user.registered' }]);
    expect(fake.faults.failNextCalls).toBe(0);
    expect(fake.faults.failNextEntries).toBe(0);
    const ids = fake.events.map((event) => event.detail.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sends what EventBridge keeps refusing to the dead-letter queue, as it would be put', async () => {
    const before = fake.deadLetters.length;
    fake.faults.failEntry = () => 'InternalFailure';
    let account: Account;
    try {
      account = await signUp(service, company);
      await poller.drain(20_000);
    } finally {
      fake.faults.failEntry = undefined;
    }
    const letters = fake.deadLetters.slice(before).map((letter) => JSON.parse(letter.body));
    expect(letters).toEqual([
      expect.objectContaining({
        error: 'InternalFailure',
        entry: expect.objectContaining({ Source: 'wallet.auth', DetailType: 'user.registered', EventBusName: SETTINGS.EVENT_BUS_NAME }),
      }),
    ]);
    expect(JSON.parse(letters[0].entry.Detail)).toMatchObject({ user_id: account!.userId, event_id: letters[0].event_id });
    expect(await eventsOf(account!.userId)).toEqual([]);
  });

  it('hands a record again when neither the bus nor the dead-letter queue takes its events, and loses none', async () => {
    fake.faults.failEntry = () => 'ThrottlingException';
    fake.faults.failNextDeadLetterCalls = 1_000_000;
    const account = await signUp(service, company);
    // Several rounds go by with the record coming again (each round 1 to 3 puts, then the queue's refusal); then the bus takes it.
    const callsBefore = fake.calls.putEvents;
    // As long as it takes (the test's timeout bounds it): a loaded machine polls the stream slower.
    while (fake.calls.putEvents - callsBefore < 8) await new Promise((resolve) => setTimeout(resolve, 50));
    const refusedCalls = fake.calls.putEvents - callsBefore;
    // The bus takes entries again; the queue keeps refusing until the event is on the bus, so a round
    // whose puts were refused just before this line cannot leave its event in the queue instead.
    fake.faults.failEntry = undefined;
    // The record comes again at the event source's next try.
    try {
      await expect
        .poll(async () => summary(await eventsOf(account.userId)), { timeout: 60_000, interval: 100 })
        .toEqual([{ type: 'user.registered' }]);
    } finally {
      fake.faults.failNextDeadLetterCalls = 0;
    }
    expect(refusedCalls).toBeGreaterThanOrEqual(8);
    expect(fake.deadLetters.filter((letter) => letter.body.includes(account.userId))).toEqual([]);
  });
});

describe('every event this file published', () => {
  it('matches the schema of its detail-type in docs/events.md, and every type was published', async () => {
    await poller.drain(20_000);
    expect(new Set(fake.events.map((event) => event['detail-type']))).toEqual(new Set(EVENT_TYPES));
    expect(fake.events.flatMap((event) => eventSchemaProblems(event))).toEqual([]);
  });
});
