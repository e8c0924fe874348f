// Every flow of the API, its refusals included, so each function takes each of its paths, through
// the recorded service (recorded-service.ts): registrations, codes, sessions and refresh, devices and
// PINs, the account and its deletion, phone changes, the back office, the events' publisher.
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { readConfig } from '../../lib/config.js';
import { newId } from '../../lib/ids.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../../lib/sessions/end-sessions.js';
import { sessionKey, userKey } from '../../lib/store/keys.js';
import { pendingChangePut, phoneChangeIndexPut } from '../../lib/store/pending-phone-change-store.js';
import { pinTriesClear } from '../../lib/store/pin-store.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { otpLogin, PINS, pinLogin, signUpWithDevice } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { startFakeEventBridge } from '../harness/eventbridge-fake.js';
import {
  type Account,
  codeIn,
  type EndpointName,
  inProcessService,
  invoke,
  lambdaContext,
  logIn,
  newCompany,
  newEmployee,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  sampleRegistration,
  sessionIdOf,
  signUp,
  testEnvironment,
} from '../helpers.js';
import {
  accountsErase,
  clock,
  config,
  failQueue,
  handlers,
  invoked,
  recordAs,
  recorded,
  recordingParts,
  recordTableActions,
  type StreamStart,
  service,
  settings,
  streamRecordsSince,
  streamStart,
  use,
  wellKnown,
} from './recorded-service.js';

let company: Company;
const headers = (authorization?: string) => ({ CompanyID: company.company_id, ...(authorization ? { Authorization: authorization } : {}) });

/** Sessions for a user, stored directly (as many logins would, without their codes); bound to a device when given one. */
async function storeSessions(account: Account, count: number, deviceKey?: string): Promise<void> {
  const now = epochSeconds(service.clock);
  for (let start = 0; start < count; start += 25) {
    const items = Array.from({ length: Math.min(25, count - start) }, () => ({
      ...sessionKey(company.company_id, account.userId, hashToken(randomUUID())),
      user_type: 2,
      created_at: now,
      last_used_at: now,
      expires_at: now + 3600,
      ...(deviceKey ? { device_key: deviceKey } : {}),
    }));
    await service.app.table.client.send(
      new BatchWriteCommand({ RequestItems: { [service.app.table.name]: items.map((Item) => ({ PutRequest: { Item } })) } }),
    );
  }
}

/**
 * The events' publisher as the table's stream runs it, from an App of its own, on every change the
 * flows committed (in batches of 100, as its event source hands them): noted as reading the stream,
 * and as putting events and sending dead letters when the bus (a loopback one) saw it do so. The
 * first entries fail, so what the bus refuses goes to the dead-letter queue.
 */
async function eventsFlows(start: StreamStart): Promise<void> {
  const records = await streamRecordsSince(start, company.company_id);
  const bus = await startFakeEventBridge({ busName: 'wallet-auth-test', faults: { failNextEntries: 2, entryError: 'InternalFailure' } });
  try {
    const own = inProcessService(
      readConfig(
        testEnvironment({
          ...settings,
          EVENT_BUS_NAME: 'wallet-auth-test',
          EVENTBRIDGE_ENDPOINT: bus.endpoint,
          EVENTS_DLQ_URL: bus.queueUrl,
          EVENTS_MAX_ATTEMPTS: '1',
        }),
      ),
      recordingParts(),
    );
    recordTableActions(own.app.table.client);
    const publish = own.streamed.eventsPublish;
    await recordAs('eventsPublish', async () => {
      use()!.stream = 'read';
      for (let at = 0; at < records.length; at += 100) {
        const batch = records.slice(at, at + 100);
        expect(await publish({ Records: batch }, lambdaContext())).toEqual({ batchItemFailures: [] });
      }
      if (bus.calls.putEvents > 0) use()!.events = 'publish';
      if (bus.calls.deadLetter > 0) use()!.deadLetters = 'events';
    });
    // The flows' changes made events (registrations, logins, locks, a deletion...); the refused ones were set aside.
    expect(bus.events.length).toBeGreaterThan(10);
    expect(bus.deadLetters.length).toBeGreaterThan(0);
  } finally {
    await bus.close();
  }
}

/** Every flow of the API, its refusals included, so each function takes each of its paths. */
export async function everyFlow(): Promise<void> {
  const start = await streamStart();
  company = await newCompany(service);
  const referrer: Account = await signUp(recorded, company);
  // Registration: plain, referred, with a phone proof, and reclaiming a phone from an unproven holder.
  const referred = await signUp(recorded, company, { referral_code: referrer.referralCode });
  await signUp(recorded, company, { referral_code: referrer.referralCode, parent_user_id: referred.userId });
  const phone = randomPhoneNumber();
  const proof = await provePhone(recorded, company, phone);
  expect((await signUp(recorded, company, { phone_number: phone, phone_verification_token: proof })).userId).toBeTruthy();
  // A holder with more sessions than one transaction can end (the rest go first, in batches).
  const holder = await signUp(recorded, company);
  await storeSessions(holder, MAX_SESSIONS_IN_TRANSACTION + 1);
  const reclaimProof = await provePhone(recorded, company, String(holder.registration.phone_number));
  await signUp(recorded, company, { phone_number: holder.registration.phone_number, phone_verification_token: reclaimProof });
  expect((await invoke(handlers.userRegister, { path: '/r', headers: headers(), body: referred.registration })).status).toBe(409);

  // Refresh: a new pair; the spent token again within the grace (its successor again); past it (reuse: the session ends, with a notice).
  const refreshing = await signUp(recorded, company);
  const refresh = (refreshToken: string) =>
    invoke(handlers.tokenRefresh, { path: '/t', headers: headers(), body: { refresh_token: refreshToken } });
  expect((await refresh(refreshing.refreshToken)).status).toBe(200);
  expect((await refresh(refreshing.refreshToken)).status).toBe(200);
  clock.advance(config.refreshReuseGraceSeconds + 1);
  expect((await refresh(refreshing.refreshToken)).status).toBe(401);
  // The discovery document and the JWKS, from a function of their own.
  await recordAs('wellKnown', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json'])
      expect((await invoke(wellKnown, { method: 'GET', path })).status).toBe(200);
  });

  // Codes: a login, a wrong code, a code for nobody, a top-up proof with a token.
  const session = await logIn(recorded, company, referrer);
  const target = { dial_code: '+1', phone_number: String(referred.registration.phone_number), user_type: 2, otp_type: 1 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const right = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  const wrong = right === '000000' ? '111111' : '000000';
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: wrong } })).status).toBe(400);
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: right } })).status).toBe(200);
  // A send the queue fails to take, for a phone sent to before and for one never sent to: the
  // counts are given back and the code taken away.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  failQueue(true);
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(503);
  const neverSent = { ...target, phone_number: String((await signUp(recorded, company)).registration.phone_number) };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: neverSent })).status).toBe(503);
  failQueue(false);
  const nobody = { ...target, phone_number: randomPhoneNumber() };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: nobody })).status).toBe(200);
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...nobody, otp: wrong } })).status).toBe(400);
  // A token unused for longer than the touch interval: each function that takes one records its
  // use. login_phone sends a top-up code, verify_otp takes it with another session of the phone's
  // owner, and an employee registers a customer.
  const employee = await newEmployee(service, company);
  const sameOwner = await logIn(recorded, company, referrer);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const topUp = { ...target, phone_number: String(referrer.registration.phone_number), otp_type: 3 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(session), body: topUp })).status).toBe(200);
  const topUpCode = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${topUp.phone_number}`).at(-1));
  const proved = await invoke(handlers.verifyOtp, { path: '/v', headers: headers(sameOwner), body: { ...topUp, otp: topUpCode } });
  expect(proved.status, JSON.stringify(proved.body)).toBe(200);
  const byEmployee = await invoke(handlers.userRegister, {
    path: '/r',
    headers: headers(employee.authorization),
    body: sampleRegistration(),
  });
  expect(byEmployee.status, JSON.stringify(byEmployee.body)).toBe(200);

  // Referrals: a page and the next one, after an hour so the session's use is recorded.
  service.clock.advance(3601);
  const page = await invoke(handlers.referralProgram, {
    method: 'GET',
    path: '/p',
    headers: headers(referrer.authorization),
    query: { limit: '1' },
  });
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  const cursor = page.body.data.next_cursor;
  expect(cursor).toEqual(expect.any(String));
  const next = await invoke(handlers.referralProgram, {
    method: 'GET',
    path: '/p',
    headers: headers(referrer.authorization),
    query: { limit: '1', cursor },
  });
  expect(next.status, JSON.stringify(next.body)).toBe(200);

  // Notifications: a page, the next, the unread ones; marked read by id (one naming its key, one
  // random id found by a walk), then all before a time, then all; after an hour each, so the
  // session's use is recorded.
  service.clock.advance(3601);
  const listNotifications = (query: Record<string, string>) =>
    invoke(handlers.notifications, { method: 'GET', path: '/n', headers: headers(referrer.authorization), query });
  const firstNotifications = await listNotifications({ limit: '1' });
  expect(firstNotifications.status, JSON.stringify(firstNotifications.body)).toBe(200);
  expect((await listNotifications({ limit: '1', cursor: firstNotifications.body.data.next_cursor })).status).toBe(200);
  expect((await listNotifications({ unread: '1' })).status).toBe(200);
  service.clock.advance(3601);
  const markRead = async (body: unknown) => {
    const answer = await invoke(handlers.notificationsRead, { path: '/m', headers: headers(referrer.authorization), body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data.marked as number;
  };
  expect(await markRead({ ids: [firstNotifications.body.data.notification[0].id, `0000${newId().slice(4)}`] })).toBe(1);
  expect(await markRead({ all: 1, before: epochSeconds(service.clock) })).toBe(1);
  expect(await markRead({ all: 1 })).toBe(0);

  // Logout: others, current, all; after an hour, so the session's use is recorded here too.
  service.clock.advance(3601);
  const others = await logIn(recorded, company, referred);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(others), body: { scope: 'others' } })).status).toBe(200);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(others) })).status).toBe(200);
  const logoutAll = () =>
    invoke(handlers.logout, { path: '/o', headers: { ...headers(session), 'Idempotency-Key': randomKeyOnce }, body: { scope: 'all' } });
  const randomKeyOnce = randomUUID();
  expect((await logoutAll()).status).toBe(200);
  // Sent again with its key: the session it ended is over, and the key's record answers its first outcome.
  expect((await logoutAll()).status).toBe(200);

  // A wrong code once the phone's window of wrong codes has run out opens a new window.
  service.clock.advance(service.app.config.otp.failureWindowSeconds + 1);
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const dayLater = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  const wrongAgain = dayLater === '000000' ? '111111' : '000000';
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: wrongAgain } })).status).toBe(400);
  expect((await invoke(handlers.notFound, { path: '/nowhere', headers: headers() })).status).toBe(404);

  // Transaction authorization, after an hour so the session's use is recorded: a right PIN, the
  // same reference again (the tries cleared alone), wrong PINs to the lock (its notice), locked.
  const payer = await signUp(recorded, company);
  service.clock.advance(3601);
  const payment = { amount: '10.50', currency: 'EUR', payee: 'Acme Coffee', reference: `order-${newId()}` };
  const authorize = (pin: string) =>
    invoke(handlers.transactionAuthorization, {
      path: '/a',
      headers: headers(payer.authorization),
      body: { ...payment, transaction_pin: pin },
    });
  const authorized = await authorize(String(payer.registration.transaction_pin));
  expect(authorized.status, JSON.stringify(authorized.body)).toBe(200);
  expect((await authorize(String(payer.registration.transaction_pin))).body.error).toEqual([1]);
  for (let attempt = 0; attempt < service.app.config.pinMaxFailures; attempt++) expect((await authorize('2468')).body.error).toEqual([17]);
  expect((await authorize('2468')).body.error).toEqual([18]);
  const transactionPin = { companyId: company.company_id, userId: payer.userId, pinType: 'transaction' as const };
  await service.app.table.client.send(new DeleteCommand(pinTriesClear(service.app.table, transactionPin).Delete!));
  // Redeemed by the payment service: other values, then the approved ones.
  const redeem = { ...payment, company_id: company.company_id, authorization_token: authorized.body.data.authorization_token };
  expect(await invoked.redeemAuthorization({ ...redeem, amount: '10.51' }, lambdaContext())).toMatchObject({ error: [19] });
  expect(await invoked.redeemAuthorization(redeem, lambdaContext())).toMatchObject({ success: 1 });
  await deviceFlows();
  await accountFlows();
  await backOfficeFlows();
  await backOfficeActionFlows();
  await phoneChangeFlows();
  await pinFlows();
  await deletionFlows();
  await companySettingsFlows();
  await eventsFlows(start);
}

/**
 * A deletion, refused a session begun by registration (touched after the touch interval), then made
 * by a fresh OTP login's session of a user with a device (a nonce and a PIN's tries on it), a
 * referrer, someone they referred, and more sessions than its transaction ends (the rest go first,
 * in batches); then the scheduled eraser erases them (ACCOUNT_ERASE_AFTER_DAYS is 0 here).
 */
async function deletionFlows(): Promise<void> {
  const referrer = await signUp(recorded, company);
  const { account, device } = await signUpWithDevice(recorded, company, { referral_code: referrer.referralCode });
  await signUp(recorded, company, { referral_code: account.referralCode });
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(200);
  const deletion = (authorization: string) => invoke(handlers.userDelete, { path: '/x', headers: headers(authorization), body: {} });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await deletion(account.authorization)).status).toBe(400);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  const fresh = await logIn(recorded, company, account);
  // A wrong PIN after the OTP login (which clears the tries): the tries are left for the eraser.
  expect((await pinLogin(recorded, company, device, '1357')).status).toBe(400);
  const deletionKey = randomUUID();
  const keyedDeletion = () =>
    invoke(handlers.userDelete, { path: '/x', headers: { ...headers(fresh), 'Idempotency-Key': deletionKey }, body: {} });
  expect((await keyedDeletion()).status).toBe(200);
  // Sent again with its key: its own session ended with the account, and the key's record answers the first outcome.
  expect((await keyedDeletion()).status).toBe(200);
  // A user with few sessions: they end in the deletion's transaction, and so does their pending phone change (stored here directly).
  const other = await signUp(recorded, company);
  const now = epochSeconds(service.clock);
  const newPhone = `+1${randomPhoneNumber()}`;
  const change = {
    change_id: newId(),
    user_type: 2,
    dial_code: '+1',
    phone_number: newPhone.slice(2),
    phone_e164: newPhone,
    via: 'user' as const,
    created_at: now,
    effective_at: now + 3600,
    expires_at: now + 7200,
  };
  const index = { user_id: other.userId, change_id: change.change_id, effective_at: change.effective_at, expires_at: change.expires_at };
  await writeTransaction(service.app.table, [
    { label: 'pending', item: pendingChangePut(service.app.table, company.company_id, other.userId, change, undefined) },
    { label: 'index', item: phoneChangeIndexPut(service.app.table, company.company_id, newPhone, 2, index, now) },
  ]);
  expect((await deletion(await logIn(recorded, company, other))).status).toBe(200);
  await recordAs('accountsErase', async () => {
    expect((await accountsErase({}, lambdaContext())).erased).toBeGreaterThanOrEqual(1);
  });
}

/** change_pin (wrong until locked, right with a few and with many other sessions) and reset_pin (by a recent OTP login, by a proof). */
async function pinFlows(): Promise<void> {
  const account = await signUp(recorded, company, PINS);
  const change = (authorization: string, body: unknown) =>
    invoke(handlers.changePin, { path: '/c', headers: headers(authorization), body });
  const reset = (authorization: string, body: unknown) => invoke(handlers.resetPin, { path: '/r', headers: headers(authorization), body });
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) {
    expect((await change(account.authorization, { pin_type: 2, current_pin: '1357', new_pin: '8052' })).status).toBe(400);
  }
  // After an hour unused, so the session's use is recorded.
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  await logIn(recorded, company, account);
  const changed = await change(account.authorization, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' });
  expect(changed.body.data.revoked, JSON.stringify(changed.body)).toBe(1);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await change(account.authorization, { pin_type: 1, current_pin: '8052', new_pin: '5207' })).status).toBe(200);
  // A reset by a proof verified with the user's token, after an hour (the session's use recorded), with
  // another session to end; then one by a session begun by OTP login, with many.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const older = await logIn(recorded, company, account);
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const proving = await logIn(recorded, company, account);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const proof = await provePhone(recorded, company, String(account.registration.phone_number), { authorization: proving });
  const byProof = await reset(older, { pin_type: 1, new_pin: '2580', phone_verification_token: proof });
  expect(byProof.body.data.revoked, JSON.stringify(byProof.body)).toBeGreaterThan(0);
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const otpSession = await logIn(recorded, company, account);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await reset(otpSession, { pin_type: 2, new_pin: '730264' })).status).toBe(200);
  // The transaction PIN changed too: its own hash and version.
  expect((await change(otpSession, { pin_type: 2, current_pin: '730264', new_pin: '582916' })).status).toBe(200);
}

/** Binding at registration and OTP login (a new key, the same key, a third removing the least recently used), PIN login, the list and removal. */
async function deviceFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const second = newDeviceKeyPair();
  const bound = await otpLogin(recorded, company, account, { device_public_key: second.publicKey });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  // PIN logins: right, a bad signature, an unknown device, wrong until locked, locked.
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(200);
  expect((await pinLogin(recorded, company, { ...newDeviceKeyPair(), deviceKey: device.deviceKey }, PINS.login_pin)).status).toBe(401);
  expect((await pinLogin(recorded, company, { ...device, deviceKey: newId() }, PINS.login_pin)).status).toBe(401);
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) expect((await pinLogin(recorded, company, device, '1357')).status).toBe(400);
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).body.error).toEqual([18]);
  // The same key again: the second device is now the most recently used.
  expect((await otpLogin(recorded, company, account, { device_public_key: second.publicKey })).status).toBe(200);
  // The first device, the least recently used, with more sessions than one transaction ends, goes for a third.
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1, device.deviceKey);
  const third = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(third.status, JSON.stringify(third.body)).toBe(200);
  // A fourth removes the second, whose few sessions end in the binding's transaction.
  const fourth = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(fourth.status, JSON.stringify(fourth.body)).toBe(200);
  const plain = await otpLogin(recorded, company, account);
  const token = `Token ${plain.body.data.token.token}`;
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.devices, { method: 'GET', path: '/d', headers: headers(token) })).status).toBe(200);
  // Removal: a device with its one session; one with more sessions than one transaction ends; one not the user's.
  const remove = (deviceKey: string) =>
    invoke(handlers.devicesRemove, { path: '/x', headers: headers(token), body: { device_key: deviceKey } });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await remove(third.body.data.device_key)).body.data.revoked).toBe(1);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1, fourth.body.data.device_key);
  expect((await remove(fourth.body.data.device_key)).status).toBe(200);
  expect((await remove(newId())).status).toBe(404);
  // With its session over, a removal sent with a key looks for a first outcome of that session's: none, 401.
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(token) })).status).toBe(200);
  expect((await remove(third.body.data.device_key)).status).toBe(401);
}

/**
 * The back office: an admin (made by the operator) gives an employee a role and takes it back, after
 * the touch interval; the company's last admin is refused the loss of the role; searches by each key;
 * views of a user, masked and whole, and of nobody.
 */
async function backOfficeFlows(): Promise<void> {
  const [admin, agent] = [await newEmployee(recorded, company), await newEmployee(recorded, company)];
  const operator = { companyId: company.company_id, actorId: 'operator', userId: admin.userId, reason: 'flows' };
  await setEmployeeRole(service.app, { ...operator, role: 'admin' });
  const session = await logIn(recorded, company, admin);
  const role = (body: unknown) => invoke(handlers.adminEmployeeRole, { path: '/r', headers: headers(session), body });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await role({ user_id: agent.userId, role: 'admin', reason: 'deputy' })).status).toBe(200);
  expect((await role({ user_id: agent.userId, role: 'support', reason: 'back to support' })).status).toBe(200);
  expect((await role({ user_id: admin.userId, role: 'none', reason: 'leaving' })).status).toBe(409);
  // Searches by each exact key, one that finds nobody, after the touch interval.
  const customer = await signUp(recorded, company);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const search = (body: Record<string, unknown>) =>
    invoke(handlers.adminUsersSearch, { path: '/s', headers: headers(session), body: { ...body, reason: 'call 1' } });
  for (const key of [
    { phone: `+1${customer.registration.phone_number}` },
    { email: customer.registration.email },
    { user_id: customer.userId },
    { referral_code: customer.referralCode },
    { phone: '+12025550100' },
  ]) {
    expect((await search(key)).status).toBe(200);
  }
  // Assisted recovery: the agent (now support) starts one, the admin approves it; another started
  // and cancelled by support; after the hold, the new number's code completes the first, removing the device.
  const agentSession = await logIn(recorded, company, agent);
  const lost = await signUpWithDevice(recorded, company);
  const act = (handler: 'adminUsersPhoneRecover' | 'adminUsersPhoneApprove' | 'adminUsersPhoneCancel', by: string, body: object) =>
    invoke(handlers[handler], { path: '/p', headers: headers(by), body: { user_id: lost.account.userId, reason: 'ticket 1', ...body } });
  const newNumber = randomPhoneNumber();
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const started = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: randomPhoneNumber() });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  // One to another number replaces it (its index item deleted); support cancels that, after the touch interval.
  const replacing = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: randomPhoneNumber() });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await act('adminUsersPhoneCancel', agentSession, { change_id: replacing.body.data.change_id })).status).toBe(200);
  const recovery = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: newNumber });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const approval = await act('adminUsersPhoneApprove', session, { change_id: recovery.body.data.change_id });
  expect(approval.status, JSON.stringify(approval.body)).toBe(200);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const target = { dial_code: '+1', phone_number: newNumber, user_type: 2, otp_type: 1 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${newNumber}`).at(-1));
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } })).status).toBe(200);
}

/**
 * The back office's actions on a user, each after the touch interval (so its function records the
 * admin's session's use): one session ended, an ended one refused, all of them (more than one
 * transaction ends); a disable with sessions to end, an enable; a device removed with its session,
 * and again (404); a deletion restored (its erase_after moved past now: deletions are due at once
 * here), and again (409).
 */
async function backOfficeActionFlows(): Promise<void> {
  const admin = await newEmployee(recorded, company);
  await setEmployeeRole(service.app, {
    companyId: company.company_id,
    actorId: 'operator',
    userId: admin.userId,
    role: 'admin',
    reason: 'flows',
  });
  const session = await logIn(recorded, company, admin);
  const act = (name: EndpointName, body: Record<string, unknown>) =>
    invoke(handlers[name], { path: '/a', headers: headers(session), body: { ...body, reason: 'flows' } });
  const touchInterval = () => service.clock.advance(service.app.config.sessionTouchSeconds + 1);

  const customer = await signUp(recorded, company);
  const sid = sessionIdOf(customer.authorization);
  touchInterval();
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId, sid })).status).toBe(200);
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId, sid })).status).toBe(404);
  await storeSessions(customer, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId })).status).toBe(200);

  await logIn(recorded, company, customer);
  touchInterval();
  const disabled = await act('adminUsersStatus', { user_id: customer.userId, status: 'disabled' });
  expect(disabled.body.data, JSON.stringify(disabled.body)).toMatchObject({ revoked: 1 });
  expect((await act('adminUsersStatus', { user_id: customer.userId, status: 'active' })).status).toBe(200);

  const { account, device } = await signUpWithDevice(recorded, company);
  touchInterval();
  const removal = { user_id: account.userId, device_key: device.deviceKey };
  expect((await act('adminUsersDevicesRemove', removal)).body.data).toMatchObject({ revoked: 1 });
  expect((await act('adminUsersDevicesRemove', removal)).status).toBe(404);

  const leaving = await signUp(recorded, company);
  const deletion = { path: '/x', headers: headers(await logIn(recorded, company, leaving)), body: {} };
  expect((await invoke(service.handlers.userDelete, deletion)).status).toBe(200);
  touchInterval();
  await service.app.table.client.send(
    new UpdateCommand({
      TableName: service.app.table.name,
      Key: userKey(company.company_id, leaving.userId),
      UpdateExpression: 'SET erase_after = :later',
      ExpressionAttributeValues: { ':later': epochSeconds(service.clock) + 3600 },
    }),
  );
  expect((await act('adminUsersRestore', { user_id: leaving.userId })).status).toBe(200);
  expect((await act('adminUsersRestore', { user_id: leaving.userId })).status).toBe(409);
  // Views of the customer, masked and whole (an admin's), and of an id the company does not hold; after the touch interval.
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const view = (body: Record<string, unknown>) =>
    invoke(handlers.adminUsersView, { path: '/v', headers: headers(session), body: { ...body, reason: 'call 1' } });
  expect((await view({ user_id: customer.userId })).status).toBe(200);
  expect((await view({ user_id: customer.userId, reveal: 1 })).status).toBe(200);
  expect((await view({ user_id: newId() })).status).toBe(404);
}

/**
 * The company's settings in the back office, each function after the touch interval: a view; a
 * change of the limits and countries alone (the one update and its record), one of the texts and
 * the name (the company read first), one refused for a text of 3 SMS; then all put back.
 */
async function companySettingsFlows(): Promise<void> {
  const admin = await newEmployee(recorded, company);
  await setEmployeeRole(service.app, {
    companyId: company.company_id,
    actorId: 'operator',
    userId: admin.userId,
    role: 'admin',
    reason: 'flows',
  });
  const session = await logIn(recorded, company, admin);
  const post = (name: 'adminCompanyView' | 'adminCompanyUpdate', body: Record<string, unknown>) =>
    invoke(handlers[name], { path: '/c', headers: headers(session), body: { ...body, reason: 'flows' } });
  const { name } = company;
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await post('adminCompanyView', {})).status).toBe(200);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const limits = await post('adminCompanyUpdate', { limits: { sms_per_hour: 5000, verifies_per_address: null }, sms_countries: ['US'] });
  expect(limits.status, JSON.stringify(limits.body)).toBe(200);
  const texts = await post('adminCompanyUpdate', {
    name: `${name} Pay`,
    sms_text: { templates: { en: 'Your {brand} code: {code}' }, default_language: 'en', app_hash: 'FA+9qCX9VSu' },
    phone_change_texts: { en: 'Your {brand} account moved to another number.' },
  });
  expect(texts.status, JSON.stringify(texts.body)).toBe(200);
  const tooLong = `{code} ${'Keep it to yourself. '.repeat(16)}`;
  expect((await post('adminCompanyUpdate', { sms_text: { templates: { en: tooLong } } })).status).toBe(400);
  const back = await post('adminCompanyUpdate', {
    name,
    sms_text: { templates: { en: null }, default_language: null, app_hash: null },
    phone_change_texts: { en: null },
    limits: { sms_per_hour: null },
    sms_countries: 'all',
  });
  expect(back.status, JSON.stringify(back.body)).toBe(200);
}

/** The profile: read, names changed, an email changed (its claim moved), another user's email refused; each after the touch interval. */
async function accountFlows(): Promise<void> {
  const [ada, grace] = [await signUp(recorded, company), await signUp(recorded, company)];
  const update = (body: unknown) => invoke(handlers.userProfileUpdate, { path: '/u', headers: headers(ada.authorization), body });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(ada.authorization) })).status).toBe(200);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await update({ first_name: 'Augusta', last_name: 'King' })).status).toBe(200);
  expect((await update({ email: `ada.${ada.userId}@example.com` })).status).toBe(200);
  expect((await update({ email: grace.registration.email })).status).toBe(409);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.userExport, { method: 'GET', path: '/e', headers: headers(ada.authorization) })).status).toBe(200);
}

/**
 * A phone change: refused a session begun by registration (touched after the touch interval), then
 * made at once by a fresh PIN login's session with more other sessions than its transaction ends
 * (the rest go first, in batches), and again to a number taken from a holder who never proved it;
 * the old number's warning is queued. Then from an OTP login's session (contract 3.11, round 5): a
 * wrong login PIN, a pending change, one replacing it, its cancel and an unknown one's, the profile
 * showing one; after the hold, a login to the new number that completes it, and one that finds the
 * number taken meanwhile (the change void).
 */
async function phoneChangeFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const change = (authorization: string, phoneNumber: string, proof?: string, pin?: string) =>
    invoke(handlers.userPhoneChange, {
      path: '/c',
      headers: headers(authorization),
      body: {
        dial_code: '+1',
        phone_number: phoneNumber,
        ...(proof ? { phone_verification_token: proof } : {}),
        ...(pin ? { login_pin: pin } : {}),
      },
    });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await change(account.authorization, randomPhoneNumber())).status).toBe(400);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  const onPin = await pinLogin(recorded, company, device, PINS.login_pin);
  const fresh = `Token ${onPin.body.data.token.token}`;
  const number = randomPhoneNumber();
  expect((await change(fresh, number, await provePhone(recorded, company, number, { authorization: fresh }))).status).toBe(200);
  const holder = await signUp(recorded, company);
  const held = String(holder.registration.phone_number);
  expect((await change(fresh, held, await provePhone(recorded, company, held, { authorization: fresh }))).status).toBe(200);

  const moved = { ...account, registration: { ...account.registration, phone_number: held } };
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  let otp = await logIn(recorded, company, moved);
  const pending = async (phoneNumber: string, pin = PINS.login_pin) => {
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    return change(otp, phoneNumber, await provePhone(recorded, company, phoneNumber, { authorization: otp }), pin);
  };
  expect((await pending(randomPhoneNumber(), '9999')).status).toBe(400);
  expect((await pending(randomPhoneNumber())).body.data.pending).toBe(1);
  const replacing = await pending(randomPhoneNumber());
  expect(replacing.body.data.pending).toBe(1);
  const cancel = (changeId: string) =>
    invoke(handlers.userPhoneChangeCancel, { path: '/x', headers: headers(otp), body: { change_id: changeId } });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await cancel(newId())).status).toBe(404);
  expect((await cancel(replacing.body.data.change_id)).status).toBe(200);
  // The touch interval made that session stale (over 10 minutes): a fresh OTP login for the next change.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  otp = await logIn(recorded, company, moved);
  const completing = randomPhoneNumber();
  expect((await pending(completing)).body.data.pending).toBe(1);
  expect(
    (await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(otp) })).body.data.pending_phone_change,
  ).toBeTruthy();
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const loginTo = async (phoneNumber: string) => {
    const target = { dial_code: '+1', phone_number: phoneNumber, user_type: 2, otp_type: 1 };
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
    const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${phoneNumber}`).at(-1));
    return (takenMeanwhile?: () => Promise<unknown>) =>
      (takenMeanwhile?.() ?? Promise.resolve()).then(() =>
        invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } }),
      );
  };
  expect((await (await loginTo(completing))()).status).toBe(200);
  // Another change of the user, whose number a registration takes between the code and its verify.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const otpAgain = await logIn(recorded, company, { ...account, registration: { ...account.registration, phone_number: completing } });
  const voided = randomPhoneNumber();
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const proof = await provePhone(recorded, company, voided, { authorization: otpAgain });
  expect((await change(otpAgain, voided, proof, PINS.login_pin)).body.data.pending).toBe(1);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const verifyVoided = await loginTo(voided);
  expect((await verifyVoided(() => signUp(recorded, company, { phone_number: voided }))).status).toBe(409);
}
