// Every flow of the API, its refusals included, so each function takes each of its paths, through
// the recorded service (recorded-service.ts): registrations, codes, sessions and refresh, devices and
// PINs, the account and its deletion, phone changes, the back office, the events' publisher.
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { readConfig } from '../../lib/config.js';
import { removeDevice } from '../../lib/devices/device-binding.js';
import { newId } from '../../lib/ids.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../../lib/sessions/end-sessions.js';
import { pinDailyKey, SESSION_PREFIX, sessionKey, userKey } from '../../lib/store/keys.js';
import { getPendingPhoneChange, pendingChangePut, phoneChangeIndexPut } from '../../lib/store/pending-change-store.js';
import { pinTriesClear } from '../../lib/store/pin-store.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { employeeWithDevice, staffMember, strongSession as staffStrongSession } from '../admin/staff.js';
import { otpLogin, PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { newDeviceKeyPair, signedLoginPin, signedStepUp } from '../harness/device-keys.js';
import { dpopProof, newDpopKey } from '../harness/dpop-proofs.js';
import { startFakeEventBridge } from '../harness/eventbridge-fake.js';
import { SoftAuthenticator } from '../harness/soft-authenticator.js';
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
  withAfterRequest,
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

  // Transaction authorization from a strong session (a PIN login on the device registration bound),
  // after an hour so the session's use is recorded: a right PIN, the same reference again (the tries
  // cleared alone), wrong PINs to the lock (its notice), locked.
  const { account: payer, device: payerDevice } = await signUpWithDevice(recorded, company);
  const strongPayer = await strongSession(recorded, company, payerDevice);
  service.clock.advance(3601);
  const payment = { amount: '10.50', currency: 'EUR', payee: 'Acme Coffee', reference: `order-${newId()}` };
  const authorize = (pin: string, authorization = strongPayer, paid = payment) =>
    invoke(handlers.transactionAuthorization, {
      path: '/a',
      headers: headers(authorization),
      body: { ...paid, transaction_pin: pin },
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
  // From an SMS-strength session (the registration's): within the company's daily limit (counted in
  // the user's window), then past it (403 code 5).
  await updateCompanySettings(service.app.table, service.clock, company.company_id, { sms_payment_limit: { EUR: '20' } });
  service.clock.advance(service.app.config.companyCacheSeconds + 1);
  const smsPaid = (amount: string) =>
    authorize(String(payer.registration.transaction_pin), payer.authorization, { ...payment, amount, reference: `order-${newId()}` });
  expect((await smsPaid('12')).status).toBe(200);
  expect((await smsPaid('12')).body.error).toEqual([5]);
  // A day on (a new PIN login), a wrong PIN opens the day's next window.
  service.clock.advance(24 * 3600 + 1);
  const nextDay = await strongSession(recorded, company, payerDevice);
  expect((await authorize('2468', nextDay)).body.error).toEqual([17]);
  await service.app.table.client.send(new DeleteCommand(pinTriesClear(service.app.table, transactionPin).Delete!));
  await deviceFlows();
  await accountFlows();
  await backOfficeFlows();
  await backOfficeActionFlows();
  await phoneChangeFlows();
  await pinFlows();
  await passkeyFlows();
  await dpopFlows();
  await deletionFlows();
  await companySettingsFlows();
  await eventsFlows(start);
}

/**
 * A deletion, refused a session begun by registration (touched after the touch interval), then held
 * from a fresh OTP login's session (SMS-strength, contract 3.15 second reading) of a user with a
 * device (a nonce and a PIN's tries on it), a referrer, someone they referred, and more sessions than
 * its transaction ends; once due it lands at a PIN login on that device (the rest of the sessions
 * go first, in batches). Another user's, held likewise, lands at a profile read. A third user's,
 * from a fresh strong session, is made at once and voids their pending phone change. Then the
 * scheduled eraser erases them (ACCOUNT_ERASE_AFTER_DAYS is 0 here).
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
  expect((await keyedDeletion()).body.data.pending).toBe(1);
  // Sent again with its key: the key's record answers the first outcome.
  expect((await keyedDeletion()).body.data.pending).toBe(1);
  // Another user's held deletion, and after the hold: the first lands at a PIN login, the second at a profile read.
  // The second user's device goes with the account, and their pending phone change (stored here directly) is void.
  const { account: reader } = await signUpWithDevice(recorded, company);
  expect((await deletion(await logIn(recorded, company, reader))).body.data.pending).toBe(1);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(401);
  const late = await logIn(recorded, company, reader);
  await storePendingPhoneChange(reader.userId);
  expect((await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(late) })).status).toBe(401);
  // A fresh strong session deletes at once; the user's pending phone change (stored here directly) is void with it.
  const other = await signUpWithDevice(recorded, company);
  await storePendingPhoneChange(other.account.userId);
  const strongDeletion = {
    path: '/x',
    headers: { ...headers(await strongSession(recorded, company, other.device)), 'Idempotency-Key': randomUUID() },
    body: {},
  };
  expect((await invoke(handlers.userDelete, strongDeletion)).body.data.erase_after).toBeGreaterThan(0);
  // Sent again with its key: its own session ended with the account, and the key's record answers the first outcome.
  expect((await invoke(handlers.userDelete, strongDeletion)).body.data.erase_after).toBeGreaterThan(0);
  await recordAs('accountsErase', async () => {
    expect((await accountsErase({}, lambdaContext())).erased).toBeGreaterThanOrEqual(1);
  });
}

/**
 * Tokens bound to a key (DPoP, contract 3.17): the routes that answer tokens spend each proof's jti
 * by a conditional put: a registration, an OTP login, a PIN login, a refresh and a step-up of the
 * bound session, each with a proof (a passkey login's is in passkeyFlows); a bound read elsewhere
 * keeps no record in the table.
 */
async function dpopFlows(): Promise<void> {
  const key = await newDpopKey();
  const origin = new URL(service.app.config.tokenIssuer).origin;
  const proved = async (name: EndpointName, body: unknown, options: { accessToken?: string; method?: string } = {}) => {
    const path = `/dpop/${name}`;
    const method = options.method ?? 'POST';
    const proof = await dpopProof(key, {
      htm: method,
      htu: `${origin}${path}`,
      iat: epochSeconds(service.clock),
      ...(options.accessToken ? { accessToken: options.accessToken } : {}),
    });
    const authorization = options.accessToken ? { Authorization: `DPoP ${options.accessToken}` } : {};
    const answer = await invoke(handlers[name], {
      method,
      path,
      headers: { ...headers(), ...authorization, DPoP: proof },
      ...(method === 'POST' ? { body } : {}),
    });
    expect(answer.status, `${name} ${JSON.stringify(answer.body)}`).toBe(200);
    return answer;
  };
  const registered = await proved('userRegister', sampleRegistration());
  expect(registered.body.data.token.type).toBe('DPoP');
  // The device is the DPoP key itself: a PIN login's proof must be signed by the device's key.
  const signedUp = await signUpWithDevice(recorded, company, { device_public_key: key.spki });
  const { account } = signedUp;
  const device = { ...signedUp.device, privateKey: key.privateKey };
  const target = { dial_code: '+1', phone_number: String(account.registration.phone_number), user_type: 2, otp_type: 1 };
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  await proved('verifyOtp', { ...target, otp: code });
  const byPin = await proved(
    'loginPin',
    signedLoginPin(device, company.company_id, PINS.login_pin, { timestamp: epochSeconds(service.clock) }),
  );
  const refreshed = await proved('tokenRefresh', { refresh_token: byPin.body.data.refresh_token });
  await proved('devices', undefined, { accessToken: refreshed.body.data.token.token, method: 'GET' });
  service.clock.advance(service.app.config.stepUpMaxAgeSeconds + 1);
  await proved('stepUp', signedStepUp(device, company.company_id, PINS.login_pin, epochSeconds(service.clock)), {
    accessToken: refreshed.body.data.token.token,
  });
  // A proof too old, on routes that read no secret otherwise: refused 401 with a fresh nonce
  // (DPoP-Nonce, RFC 9449 section 8), which is keyed by the server secret.
  for (const [name, method] of [
    ['devices', 'GET'],
    ['userProfile', 'GET'],
    ['passkeys', 'GET'],
    ['passkeysRegister', 'POST'],
    ['passkeysRemove', 'POST'],
  ] as const) {
    const path = `/dpop/${name}`;
    const stale = await dpopProof(key, { htm: method, htu: `${origin}${path}`, iat: epochSeconds(service.clock) - 3600 });
    const refused = await invoke(handlers[name], {
      method,
      path,
      headers: { ...headers(), DPoP: stale },
      ...(method === 'POST' ? { body: {} } : {}),
    });
    expect(refused.status, `${name} ${JSON.stringify(refused.body)}`).toBe(401);
    expect(refused.headers?.['dpop-nonce'], name).toEqual(expect.any(String));
  }
}

const PASSKEY_ORIGIN = 'https://wallet.example.com';

/**
 * Passkeys (contract 3.16) with a software authenticator, on the flows' company given webauthn
 * settings: registered from a strong session (a broken attestation refused, the same credential
 * again refused 409), listed; a login after options with and without a phone typed (an unknown
 * one too), a reused challenge and a stranger's credential refused, a counter gone back (marked
 * cloned); a PIN login, an OTP login and a step-up of a passkey holder; removed by the user and by
 * staff (and again, 404); an employee's own added and removed, recorded; not_me removing a young passkey; a passkey holder's deletion, erased by
 * deletionFlows' eraser.
 */
async function passkeyFlows(): Promise<void> {
  await updateCompanySettings(service.app.table, service.clock, company.company_id, {
    webauthn: { rp_id: 'wallet.example.com', origins: [PASSKEY_ORIGIN] },
  });
  service.clock.advance(service.app.config.companyCacheSeconds + 1);
  const post = (name: EndpointName, body: unknown, authorization?: string) =>
    invoke(handlers[name], { path: '/p', headers: headers(authorization), body });
  const loginOptions = async (body: unknown = {}) => {
    const answer = await post('passkeysLoginOptions', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data.options;
  };
  const withPasskey = async (authenticator = new SoftAuthenticator()) => {
    const { account, device } = await signUpWithDevice(recorded, company);
    const strong = await strongSession(recorded, company, device);
    const options = await post('passkeysRegisterOptions', {}, strong);
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    const created = authenticator.create(options.body.data.options, PASSKEY_ORIGIN);
    const registered = await post('passkeysRegister', created, strong);
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    return { account, device, strong, phone: authenticator, passkeyId: registered.body.data.passkey_id as string, created };
  };
  const { account, device, strong, phone, passkeyId, created } = await withPasskey();
  // Sent again, as after a 503 whose write landed: its challenge taken, the passkey its first run added.
  const resent = await post('passkeysRegister', created, strong);
  expect(resent.body.data?.passkey_id, JSON.stringify(resent.body)).toBe(passkeyId);
  // Refused: a broken attestation, then a credential id the company holds already.
  const options = await post('passkeysRegisterOptions', {}, strong);
  const unregistered = new SoftAuthenticator();
  const response = unregistered.create(options.body.data.options, PASSKEY_ORIGIN);
  const broken = { ...response, response: { ...response.response, attestationObject: 'AAAA' } };
  expect((await post('passkeysRegister', broken, strong)).status).toBe(400);
  const again = await post('passkeysRegisterOptions', {}, strong);
  const same = new SoftAuthenticator().create(again.body.data.options, PASSKEY_ORIGIN, { credentialId: phone.credentials[0]!.id });
  expect((await post('passkeysRegister', same, strong)).status).toBe(409);
  // Each again after the touch interval, so each records the session's use; by then the options'
  // challenge (300 s) has expired.
  touchInterval();
  const later = await post('passkeysRegisterOptions', {}, strong);
  expect(later.status, JSON.stringify(later.body)).toBe(200);
  touchInterval();
  const expired = await post('passkeysRegister', new SoftAuthenticator().create(later.body.data.options, PASSKEY_ORIGIN), strong);
  expect(expired.body.data.errors, JSON.stringify(expired.body)).toEqual([
    { code: 1, field: 'response.clientDataJSON', detail: 'unknown or expired challenge' },
  ]);
  touchInterval();
  const listed = await invoke(handlers.passkeys, { method: 'GET', path: '/p', headers: headers(strong) });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  // Logins: discoverable, after a phone typed (and one with no account), a challenge used twice, a stranger's credential.
  const first = phone.get(await loginOptions(), PASSKEY_ORIGIN);
  const byPasskey = await post('passkeysLogin', first);
  expect(byPasskey.status, JSON.stringify(byPasskey.body)).toBe(200);
  expect((await post('passkeysLogin', first)).status).toBe(401);
  const typed = await loginOptions({ dial_code: '+1', phone_number: account.registration.phone_number });
  expect((await post('passkeysLogin', phone.get(typed, PASSKEY_ORIGIN))).status).toBe(200);
  await loginOptions({ dial_code: '+1', phone_number: randomPhoneNumber() });
  expect((await post('passkeysLogin', unregistered.get(await loginOptions(), PASSKEY_ORIGIN))).status).toBe(401);
  const counting = await withPasskey(new SoftAuthenticator({ keepsCounter: true, backedUp: false }));
  expect((await post('passkeysLogin', counting.phone.get(await loginOptions(), PASSKEY_ORIGIN))).status).toBe(200);
  expect((await post('passkeysLogin', counting.phone.get(await loginOptions(), PASSKEY_ORIGIN, { counter: 1 }))).status).toBe(401);
  // A passkey login holds a device bound by a code meanwhile (on probation). Not me (not_me: 1) with
  // a passkey login, and with a PIN login, undoes what a swapper did: a phone change that waits
  // cancelled (its number's index freed), a device on probation removed, the user's other passkeys
  // registered lately removed, the other sessions ended.
  const twice = await withPasskey();
  const probation = () => otpLogin(recorded, company, twice.account, { device_public_key: newDeviceKeyPair().publicKey });
  expect((await probation()).status).toBe(200);
  expect((await post('passkeysLogin', twice.phone.get(await loginOptions(), PASSKEY_ORIGIN))).status).toBe(200);
  const swappedIn = async (user: { account: Account; strong: string }) => {
    const more = await post('passkeysRegisterOptions', {}, user.strong);
    const added = await post('passkeysRegister', new SoftAuthenticator().create(more.body.data.options, PASSKEY_ORIGIN), user.strong);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await otpLogin(recorded, company, user.account, { device_public_key: newDeviceKeyPair().publicKey })).status).toBe(200);
    await storePendingPhoneChange(user.account.userId);
  };
  await swappedIn(twice);
  const notMe = await post('passkeysLogin', { ...twice.phone.get(await loginOptions(), PASSKEY_ORIGIN), not_me: 1 });
  expect(notMe.status, JSON.stringify(notMe.body)).toBe(200);
  const youngByPin = await withPasskey();
  await swappedIn(youngByPin);
  const pinNotMe = await post('loginPin', {
    ...signedLoginPin(youngByPin.device, company.company_id, PINS.login_pin, { timestamp: epochSeconds(service.clock) }),
    not_me: 1,
  });
  expect(pinNotMe.status, JSON.stringify(pinNotMe.body)).toBe(200);
  // A passkey login with a DPoP proof (contract 3.17): its jti spent, the session bound to its key.
  const key = await newDpopKey();
  const bound = await invoke(handlers.passkeysLogin, {
    path: '/p',
    headers: {
      ...headers(),
      DPoP: await dpopProof(key, {
        htm: 'POST',
        htu: `${new URL(service.app.config.tokenIssuer).origin}/p`,
        iat: epochSeconds(service.clock),
      }),
    },
    body: twice.phone.get(await loginOptions(), PASSKEY_ORIGIN),
  });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  expect(bound.body.data.token.type).toBe('DPoP');
  // A passkey holder's PIN login and OTP login; a step-up by passkey (and another user's, refused).
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(200);
  expect((await otpLogin(recorded, company, account)).status).toBe(200);
  const passkeySession = `Token ${byPasskey.body.data.token.token}`;
  service.clock.advance(service.app.config.stepUpMaxAgeSeconds + 1);
  const stepped = await post('stepUp', { passkey: phone.get(await loginOptions(), PASSKEY_ORIGIN) }, passkeySession);
  expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
  const fresh = `Token ${stepped.body.data.token.token}`;
  expect((await post('stepUp', { passkey: counting.phone.get(await loginOptions(), PASSKEY_ORIGIN) }, fresh)).status).toBe(401);
  // Removed by the user (the sessions it began end), by staff (and again: 404), and by not_me. The
  // user's removal is from the session the passkey began, with an Idempotency-Key: sent again, its
  // session is over and the key's record answers the first outcome.
  const removalKey = randomUUID();
  const removal = () =>
    invoke(handlers.passkeysRemove, {
      path: '/p',
      headers: { ...headers(fresh), 'Idempotency-Key': removalKey },
      body: { passkey_id: passkeyId },
    });
  const removed = await removal();
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  expect((await removal()).status).toBe(200);
  expect((await post('passkeysRemove', { passkey_id: passkeyId }, await strongSession(recorded, company, device))).status).toBe(404);
  const agent = await staffMember(recorded, company, 'support');
  const staffRemove = () =>
    post('adminUsersPasskeysRemove', { user_id: counting.account.userId, passkey_id: counting.passkeyId, reason: 'flows' }, agent.session);
  touchInterval();
  const byStaff = await staffRemove();
  expect(byStaff.status, JSON.stringify(byStaff.body)).toBe(200);
  expect((await staffRemove()).status).toBe(404);
  // An employee adds a passkey of their own and removes it, each with a reason the staff chain records.
  const addOptions = await post('passkeysRegisterOptions', {}, agent.session);
  const ownKey = new SoftAuthenticator().create(addOptions.body.data.options, PASSKEY_ORIGIN);
  const ownAdded = await post('passkeysRegister', { ...ownKey, reason: 'flows' }, agent.session);
  expect(ownAdded.status, JSON.stringify(ownAdded.body)).toBe(200);
  const ownRemoved = await post('passkeysRemove', { passkey_id: ownAdded.body.data.passkey_id, reason: 'flows' }, agent.session);
  expect(ownRemoved.status, JSON.stringify(ownRemoved.body)).toBe(200);
  const young = await withPasskey();
  const secured = await post('userSecurityNotMe', {}, await strongSession(recorded, company, young.device));
  expect(secured.status, JSON.stringify(secured.body)).toBe(200);
  expect(secured.body.data.passkeys_removed).toBe(1);
  // A recovery's completion removes the user's passkeys: support starts it, an admin approves it.
  const recovered = await withPasskey();
  const approver = await staffMember(recorded, company, 'admin');
  const toNumber = randomPhoneNumber();
  const recovery = await post(
    'adminUsersPhoneRecover',
    { user_id: recovered.account.userId, dial_code: '+1', phone_number: toNumber, reason: 'flows' },
    agent.session,
  );
  expect(recovery.status, JSON.stringify(recovery.body)).toBe(200);
  const change = { user_id: recovered.account.userId, change_id: recovery.body.data.change_id, reason: 'flows' };
  expect((await post('adminUsersPhoneApprove', change, approver.session)).status).toBe(200);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  await completeRecovery(toNumber);
  // A passkey holder deletes their account (a fresh strong session): deletionFlows' eraser erases their passkeys too.
  const leaving = await withPasskey();
  expect((await post('userDelete', {}, await strongSession(recorded, company, leaving.device))).body.data.erase_after).toBeGreaterThan(0);
}

/**
 * change_pin (wrong until locked; right from a strong session with a few and with many other
 * sessions; held from an SMS-strength one) and reset_pin (held from a recent OTP login; at once from a
 * strong session with a proof, superseding the one that waited); a held PIN put in place at its next
 * check once due.
 */
async function pinFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const change = (authorization: string, body: unknown) =>
    invoke(handlers.changePin, { path: '/c', headers: headers(authorization), body });
  // Locked (another user's tally): nothing compared, and the day's window its try opened (none was open) goes with the try.
  const lockedOut = await signUp(recorded, company);
  const wrongChange = () => change(lockedOut.authorization, { pin_type: 2, current_pin: '1357', new_pin: '8052' });
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) expect((await wrongChange()).body.error).toEqual([17]);
  await clearPinDay(lockedOut.userId, 'transaction');
  expect((await wrongChange()).body.error).toEqual([18]);
  const reset = (authorization: string, body: unknown) => invoke(handlers.resetPin, { path: '/r', headers: headers(authorization), body });
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) {
    expect((await change(account.authorization, { pin_type: 2, current_pin: '1357', new_pin: '8052' })).status).toBe(400);
  }
  // After an hour unused, so the session's use is recorded: a strong session changes at once.
  const strong = await strongSession(recorded, company, device);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  await logIn(recorded, company, account);
  const changed = await change(strong, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' });
  expect(changed.body.data.revoked, JSON.stringify(changed.body)).toBe(2);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await change(strong, { pin_type: 1, current_pin: '8052', new_pin: '5207' })).status).toBe(200);
  // From an SMS-strength session (an OTP login's), a change and a reset wait; the number is told.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const otpSession = await logIn(recorded, company, account);
  expect((await change(otpSession, { pin_type: 1, current_pin: '5207', new_pin: '2580' })).body.data.pending).toBe(1);
  expect((await reset(otpSession, { pin_type: 2, new_pin: '730264' })).body.data.pending).toBe(1);
  // A wrong login PIN from that session (no device: its own tally), which the reset below clears.
  expect((await change(otpSession, { pin_type: 1, current_pin: '1357', new_pin: '2580' })).body.error).toEqual([17]);
  // A strong session with a proof verified with the user's token resets at once, the held reset superseded.
  const fresh = await strongSession(recorded, company, device, '5207');
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const proof = await provePhone(recorded, company, String(account.registration.phone_number), { authorization: strong });
  const byProof = await reset(fresh, { pin_type: 1, new_pin: '4826', phone_verification_token: proof });
  expect(byProof.status, JSON.stringify(byProof.body)).toBe(200);
  expect(byProof.body.data.revoked).toBeGreaterThan(0);
  // Once due, the held transaction PIN is put in place by its next check (its change done, every session but the asking one ended).
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600 + 1);
  const another = await logIn(recorded, company, account);
  const held = await change(another, { pin_type: 2, current_pin: '730264', new_pin: '582916' });
  expect(held.body.data.pending).toBe(1);
  // Cancelled from another session, after the touch interval (its use recorded).
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const cancelled = await invoke(handlers.userChangesCancel, {
    path: '/c',
    headers: headers(another),
    body: { change_id: held.body.data.change_id },
  });
  expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
  // Held again, then superseded by a strong session's change of the same PIN.
  expect((await change(another, { pin_type: 2, current_pin: '730264', new_pin: '582916' })).body.data.pending).toBe(1);
  const stronger = await strongSession(recorded, company, device, '4826');
  expect((await change(stronger, { pin_type: 2, current_pin: '730264', new_pin: '582916' })).body.data.revoked).toBeGreaterThan(0);
  // A removal of the device landing between a PIN login's session and its checks (a grant in steps,
  // lib/sessions/session-grant.ts): the login finds it, marks its session ended and answers 401.
  const racing = await signUpWithDevice(recorded, company);
  let removed = false;
  const raced = await withAfterRequest(
    async (name, operation, body) => {
      const sk = (body.Item as { sk?: { S?: string } } | undefined)?.sk?.S;
      if (removed || name !== 'loginPin' || operation !== 'PutItem' || !sk?.startsWith(SESSION_PREFIX)) return;
      removed = true;
      await removeDevice(service.app, company.company_id, racing.account.userId, racing.device.deviceKey);
    },
    () => pinLogin(recorded, company, racing.device, PINS.login_pin),
  );
  expect(removed).toBe(true);
  expect(raced.status, JSON.stringify(raced.body)).toBe(401);
  await pinDayFlows();
}

/**
 * The day's cap of wrong login PINs (contract 3.15), which counts the devices bound after the latest
 * right PIN: a window opened by a wrong PIN, opened anew a day later, and given back whole by a right
 * PIN alone in its window.
 */
async function pinDayFlows(): Promise<void> {
  const { account } = await signUpWithDevice(recorded, company);
  const bind = async () => {
    const keys = newDeviceKeyPair();
    const bound = await otpLogin(recorded, company, account, { device_public_key: keys.publicKey });
    return { ...keys, deviceKey: bound.body.data.device_key as string };
  };
  const newer = await bind();
  expect((await pinLogin(recorded, company, newer, '1357')).body.error).toEqual([17]);
  service.clock.advance(24 * 3600 + 1);
  expect((await pinLogin(recorded, company, newer, '1357')).body.error).toEqual([17]);
  expect((await pinLogin(recorded, company, newer, PINS.login_pin)).status).toBe(200);
  service.clock.advance(24 * 3600 + 1);
  // Settled by time now, both slots are: the newer one goes, from its own strong session, to free one.
  const onNewer = await strongSession(recorded, company, newer);
  expect(
    (await invoke(handlers.devicesRemove, { path: '/x', headers: headers(onNewer), body: { device_key: newer.deviceKey } })).status,
  ).toBe(200);
  const alone = await pinLogin(recorded, company, await bind(), PINS.login_pin);
  expect(alone.status, JSON.stringify(alone.body)).toBe(200);
  // A locked device's PIN compares nothing: the day's window its try opened (none was open) goes with the try.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const locked = await bind();
  for (let i = 0; i < service.app.config.pinMaxFailures; i++)
    expect((await pinLogin(recorded, company, locked, '1357')).body.error).toEqual([17]);
  await clearPinDay(account.userId, 'login');
  expect((await pinLogin(recorded, company, locked, PINS.login_pin)).body.error).toEqual([18]);
}

/** Deletes a user's day of wrong PINs (as if none had been sent that day). */
async function clearPinDay(userId: string, pinType: 'login' | 'transaction'): Promise<void> {
  await service.app.table.client.send(
    new DeleteCommand({ TableName: service.app.table.name, Key: pinDailyKey(company.company_id, userId, pinType) }),
  );
}

/**
 * Binding at registration (settled) and OTP login (on probation: a new key, the same key, new keys up
 * to the most on probation, one more removing the oldest on probation), PIN login (strong on the
 * settled device, holding the others; SMS-strength on one on probation), the list, removal (at once
 * on probation, held for a settled device and put in place once due), approval, step-up and not_me.
 */
async function deviceFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const second = newDeviceKeyPair();
  const bound = await otpLogin(recorded, company, account, { device_public_key: second.publicKey });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  const secondDevice = { ...second, deviceKey: bound.body.data.device_key as string };
  // PIN logins: right (strong: it holds the second on probation), a bad signature, an unknown device,
  // one on probation (SMS-strength), wrong until the device's tally locks, locked.
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(200);
  expect((await pinLogin(recorded, company, { ...newDeviceKeyPair(), deviceKey: device.deviceKey }, PINS.login_pin)).status).toBe(401);
  expect((await pinLogin(recorded, company, { ...device, deviceKey: newId() }, PINS.login_pin)).status).toBe(401);
  expect((await pinLogin(recorded, company, secondDevice, PINS.login_pin)).status).toBe(200);
  for (let i = 0; i < service.app.config.pinMaxFailures; i++)
    expect((await pinLogin(recorded, company, secondDevice, '1357')).status).toBe(400);
  expect((await pinLogin(recorded, company, secondDevice, PINS.login_pin)).body.error).toEqual([18]);
  // The same key again.
  expect((await otpLogin(recorded, company, account, { device_public_key: second.publicKey })).status).toBe(200);
  // Two slots (MAX_DEVICES_PER_USER here): the second, on probation, with more sessions than one
  // transaction ends, goes when a third needs its slot; the third goes, its few sessions in the
  // binding's transaction, for a fourth. The settled device stays.
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1, secondDevice.deviceKey);
  const third = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(third.status, JSON.stringify(third.body)).toBe(200);
  const fourth = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(fourth.status, JSON.stringify(fourth.body)).toBe(200);
  const plain = await otpLogin(recorded, company, account);
  const token = `Token ${plain.body.data.token.token}`;
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.devices, { method: 'GET', path: '/d', headers: headers(token) })).status).toBe(200);
  // Removal: one on probation with its one session, at once; one with more sessions than one
  // transaction ends (bound an hour on: the phone's sends of an hour are spent); one not the user's;
  // the settled one, held (an SMS-strength session).
  const remove = (deviceKey: string, authorization = token) =>
    invoke(handlers.devicesRemove, { path: '/x', headers: headers(authorization), body: { device_key: deviceKey } });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const removedFourth = await remove(fourth.body.data.device_key);
  expect(removedFourth.body.data.revoked, JSON.stringify(removedFourth.body)).toBe(1);
  service.clock.advance(3601);
  const fifth = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1, fifth.body.data.device_key);
  expect((await remove(fifth.body.data.device_key)).status).toBe(200);
  expect((await remove(newId())).status).toBe(404);
  expect((await remove(device.deviceKey)).body.data.pending).toBe(1);
  // Due: the next listing puts it in place.
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600 + 1);
  expect((await invoke(handlers.devices, { method: 'GET', path: '/d', headers: headers(token) })).body.data.devices).toEqual([]);
  // With its session over, a removal sent with a key looks for a first outcome of that session's: none, 401.
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(token) })).status).toBe(200);
  expect((await remove(fourth.body.data.device_key)).status).toBe(401);
  await strongDeviceFlows();
}

/**
 * What a strong session does with devices: approves one on probation, steps up once its proof is old,
 * and says "Not me" (a change that waited cancelled, a device on probation removed, other sessions ended).
 */
async function strongDeviceFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const onProbation = (await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey })).body.data
    .device_key;
  const strong = await strongSession(recorded, company, device);
  const post = (endpoint: 'devicesApprove' | 'stepUp' | 'userSecurityNotMe' | 'resetPin', body: unknown, authorization = strong) =>
    invoke(handlers[endpoint], { path: '/s', headers: headers(authorization), body });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await post('devicesApprove', { device_key: onProbation })).status).toBe(200);
  // Both slots settled: an OTP login's binding is refused (DEVICE_LIMIT), the login itself succeeds.
  const refused = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(refused.body.data.device_refused.code).toBe(22);
  // The approved device goes at once, from the strong session: a slot on probation again.
  expect((await invoke(handlers.devicesRemove, { path: '/x', headers: headers(strong), body: { device_key: onProbation } })).status).toBe(
    200,
  );
  // Stale once STEP_UP_MAX_AGE_SECONDS has passed: not_me needs a fresh session, which step_up gives.
  service.clock.advance(service.app.config.stepUpMaxAgeSeconds + 1);
  expect((await post('userSecurityNotMe', {})).body.data.needs).toBe('strong_fresh');
  const stepped = await post('stepUp', signedStepUp(device, company.company_id, PINS.login_pin, epochSeconds(service.clock)));
  expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
  const fresh = `Token ${stepped.body.data.token.token}`;
  // A swapper's held reset and a new device on probation, for not_me to undo.
  const swapper = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  const swapped = `Token ${swapper.body.data.token.token}`;
  expect((await post('resetPin', { pin_type: 1, new_pin: '8052' }, swapped)).body.data.pending).toBe(1);
  // And a phone change that waits (the swapper phished the login PIN): not_me frees its number's index.
  const away = randomPhoneNumber();
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const proof = await provePhone(recorded, company, away, { authorization: swapped });
  const moving = await invoke(handlers.userPhoneChange, {
    path: '/c',
    headers: headers(swapped),
    body: { dial_code: '+1', phone_number: away, phone_verification_token: proof, login_pin: PINS.login_pin },
  });
  expect(moving.body.data.pending, JSON.stringify(moving.body)).toBe(1);
  // After the touch interval, so not_me records the session's use.
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const undone = await post('userSecurityNotMe', {}, fresh);
  expect(undone.body.data, JSON.stringify(undone.body)).toMatchObject({ cancelled: 2, devices_removed: 1 });
  // Wrong PINs at step-up count on the device's tally, to its lock (and its notice).
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) {
    expect((await post('stepUp', signedStepUp(device, company.company_id, '1357', epochSeconds(service.clock)))).body.error).toEqual([17]);
  }
}

/**
 * The back office: an admin (made by the operator, signed in strongly) registers an employee; a
 * role that gives power asked and approved by a second admin, one taken back at once, the last
 * active admin refused the loss of it, what awaits approval listed; searches by each key; a
 * recovery started (and one refused, recorded), replaced, cancelled, approved and completed.
 */
async function backOfficeFlows(): Promise<void> {
  const [admin, second] = [await staffMember(recorded, company, 'admin'), await staffMember(recorded, company, 'admin')];
  const session = admin.session;
  const post = (name: EndpointName, by: string, body: Record<string, unknown>) =>
    invoke(handlers[name], { path: '/b', headers: headers(by), body: { reason: 'flows', ...body } });
  touchInterval();
  const registered = await invoke(handlers.userRegister, {
    path: '/r',
    headers: headers(session),
    body: sampleRegistration({ user_type: 1, parent_user_id: undefined, referral_code: undefined, reason: 'new hire' }),
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const agent = await employeeWithDevice(recorded, company);
  // The employee's device bound by an OTP login never settles by time: another admin settles it (contract 3.14).
  const bound = await otpLogin(recorded, company, agent, { device_public_key: newDeviceKeyPair().publicKey, device_id: 'laptop' });
  touchInterval();
  const settled = await post('adminEmployeesDevicesApprove', session, { user_id: agent.userId, device_key: bound.body.data.device_key });
  expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  touchInterval();
  const asked = await post('adminEmployeeRole', second.session, { user_id: agent.userId, role: 'admin' });
  expect(asked.body.data.pending, JSON.stringify(asked.body)).toBe(1);
  touchInterval();
  expect((await post('adminEmployeesApprove', session, { grant_id: asked.body.data.grant_id })).status).toBe(200);
  expect((await post('adminEmployeeRole', session, { user_id: agent.userId, role: 'support' })).status).toBe(200);
  // Searches by each exact key, one that finds nobody, after the touch interval.
  const customer = await signUp(recorded, company);
  touchInterval();
  const search = (body: Record<string, unknown>) => post('adminUsersSearch', session, body);
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
  // and cancelled by support; one to a number held is refused and recorded; after the hold, the new
  // number's code completes the first, removing the device.
  const agentSession = await staffStrongSession(recorded, company, agent);
  const lost = await signUpWithDevice(recorded, company);
  const act = (handler: 'adminUsersPhoneRecover' | 'adminUsersPhoneApprove' | 'adminUsersPhoneCancel', by: string, body: object) =>
    post(handler, by, { user_id: lost.account.userId, ...body });
  const newNumber = randomPhoneNumber();
  touchInterval();
  const started = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: randomPhoneNumber() });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const held = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: customer.registration.phone_number });
  expect(held.status).toBe(409);
  // One to another number replaces it (its index item deleted); support cancels that, after the touch interval.
  const replacing = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: randomPhoneNumber() });
  touchInterval();
  const cancelled = await act('adminUsersPhoneCancel', agentSession, { change_id: replacing.body.data.change_id });
  expect(cancelled.status, JSON.stringify([replacing.body, cancelled.body])).toBe(200);
  const recovery = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: newNumber });
  touchInterval();
  // What awaits approval: the recovery, its change read.
  expect((await post('adminApprovalsList', session, {})).body.data.recoveries).toHaveLength(1);
  touchInterval();
  const approval = await act('adminUsersPhoneApprove', session, { change_id: recovery.body.data.change_id });
  expect(approval.status, JSON.stringify(approval.body)).toBe(200);
  // The other admin steps down; the last active admin may not.
  expect((await post('adminEmployeeRole', session, { user_id: second.userId, role: 'none' })).status).toBe(200);
  expect((await post('adminEmployeeRole', session, { user_id: admin.userId, role: 'none' })).status).toBe(409);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  await completeRecovery(newNumber);
}

/** After its hold, an approved recovery's new number gets a code, which completes it (an OTP login). */
async function completeRecovery(newNumber: string): Promise<void> {
  const target = { dial_code: '+1', phone_number: newNumber, user_type: 2, otp_type: 1 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${newNumber}`).at(-1));
  const completed = await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
}

/** A pending phone change of the user from an SMS-strength session, with its index by the new number, stored directly. */
async function storePendingPhoneChange(userId: string): Promise<void> {
  const replaced = await getPendingPhoneChange(service.app.table, company.company_id, userId, true);
  const now = epochSeconds(service.clock);
  const newPhone = `+1${randomPhoneNumber()}`;
  const change = {
    change_id: newId(),
    kind: 'phone' as const,
    acr: 'sms' as const,
    user_type: 2,
    dial_code: '+1',
    phone_number: newPhone.slice(2),
    phone_e164: newPhone,
    via: 'user' as const,
    created_at: now,
    effective_at: now + 3600,
    expires_at: now + 7200,
  };
  const index = { user_id: userId, change_id: change.change_id, effective_at: change.effective_at, expires_at: change.expires_at };
  await writeTransaction(service.app.table, [
    { label: 'pending', item: pendingChangePut(service.app.table, company.company_id, userId, change, replaced) },
    { label: 'index', item: phoneChangeIndexPut(service.app.table, company.company_id, newPhone, 2, index, now) },
  ]);
}

/** Waits out the touch interval: the next call with a session records its use. */
const touchInterval = () => service.clock.advance(service.app.config.sessionTouchSeconds + 1);

/**
 * The back office's actions on a user, each after the touch interval (so its function records the
 * admin's session's use): one session ended, an ended one refused, all of them (more than one
 * transaction ends); a disable with sessions to end, an enable; a device removed with its session,
 * and again (404); a deletion restored (its erase_after moved past now: deletions are due at once
 * here), and again (409). Then an admin disabled and enabled (their seat given up and taken), an
 * employee disabled (no seat), an admin's and an employee's own deletion, and the admin restored.
 */
async function backOfficeActionFlows(): Promise<void> {
  const admin = await staffMember(recorded, company, 'admin');
  const session = admin.session;
  const act = (name: EndpointName, body: Record<string, unknown>) =>
    invoke(handlers[name], { path: '/a', headers: headers(session), body: { ...body, reason: 'flows' } });

  const customer = await signUp(recorded, company);
  const sid = sessionIdOf(customer.authorization);
  // Each action that strips the owner's defences ends their SMS-strength changes and freezes new ones (contract 3.15).
  await storePendingPhoneChange(customer.userId);
  touchInterval();
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId, sid })).status).toBe(200);
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId, sid })).status).toBe(404);
  await storeSessions(customer, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId })).status).toBe(200);

  await logIn(recorded, company, customer);
  await storePendingPhoneChange(customer.userId);
  touchInterval();
  const disabled = await act('adminUsersStatus', { user_id: customer.userId, status: 'disabled' });
  expect(disabled.body.data, JSON.stringify(disabled.body)).toMatchObject({ revoked: 1 });
  expect((await act('adminUsersStatus', { user_id: customer.userId, status: 'active' })).status).toBe(200);

  const { account, device } = await signUpWithDevice(recorded, company);
  await storePendingPhoneChange(account.userId);
  touchInterval();
  const removal = { user_id: account.userId, device_key: device.deviceKey };
  expect((await act('adminUsersDevicesRemove', removal)).body.data).toMatchObject({ revoked: 1 });
  expect((await act('adminUsersDevicesRemove', removal)).status).toBe(404);

  const { account: leaving, device: leavingDevice } = await signUpWithDevice(recorded, company);
  const deletion = { path: '/x', headers: headers(await strongSession(recorded, company, leavingDevice)), body: {} };
  expect((await invoke(service.handlers.userDelete, deletion)).body.data.erase_after).toBeGreaterThan(0);
  touchInterval();
  const dueLater = (userId: string) =>
    service.app.table.client.send(
      new UpdateCommand({
        TableName: service.app.table.name,
        Key: userKey(company.company_id, userId),
        UpdateExpression: 'SET erase_after = :later',
        ExpressionAttributeValues: { ':later': epochSeconds(service.clock) + 3600 },
      }),
    );
  await dueLater(leaving.userId);
  expect((await act('adminUsersRestore', { user_id: leaving.userId })).status).toBe(200);
  expect((await act('adminUsersRestore', { user_id: leaving.userId })).status).toBe(409);
  // Views of the customer, masked and whole (an admin's), and of an id the company does not hold; after the touch interval.
  touchInterval();
  const view = (body: Record<string, unknown>) =>
    invoke(handlers.adminUsersView, { path: '/v', headers: headers(session), body: { ...body, reason: 'call 1' } });
  expect((await view({ user_id: customer.userId })).status).toBe(200);
  expect((await view({ user_id: customer.userId, reveal: 1 })).status).toBe(200);
  expect((await view({ user_id: newId() })).status).toBe(404);

  // Staff: an admin disabled and enabled, an employee without a role disabled; each deletes their own account, the admin is restored.
  const [deputy, clerk] = [await staffMember(recorded, company, 'admin'), await staffMember(recorded, company, 'none')];
  expect((await act('adminUsersStatus', { user_id: deputy.userId, status: 'disabled' })).status).toBe(200);
  expect((await act('adminUsersStatus', { user_id: deputy.userId, status: 'active' })).status).toBe(200);
  expect((await act('adminUsersStatus', { user_id: clerk.userId, status: 'disabled' })).status).toBe(200);
  const clerkAgain = await staffMember(recorded, company, 'none');
  for (const employee of [deputy, clerkAgain]) {
    const own = { path: '/x', headers: headers(await staffStrongSession(recorded, company, employee)), body: {} };
    expect((await invoke(handlers.userDelete, own)).status).toBe(200);
  }
  await dueLater(deputy.userId);
  expect((await act('adminUsersRestore', { user_id: deputy.userId })).status).toBe(200);
}

/**
 * The company's settings in the back office, each function after the touch interval: a view; a
 * change of the limits alone (the one update and its record); changes of the countries, and of the
 * texts with the name (the company read first), each asked and applied by a second admin; one
 * refused for a text of 3 SMS; then all put back.
 */
async function companySettingsFlows(): Promise<void> {
  const [admin, second] = [await staffMember(recorded, company, 'admin'), await staffMember(recorded, company, 'admin')];
  const post = (name: 'adminCompanyView' | 'adminCompanyUpdate' | 'adminCompanyApprove', body: Record<string, unknown>, by = admin) =>
    invoke(handlers[name], { path: '/c', headers: headers(by.session), body: { ...body, reason: 'flows' } });
  /** A change as applied: asked, and approved by the second admin when it waits for one. */
  const applied = async (body: Record<string, unknown>) => {
    const asked = await post('adminCompanyUpdate', body);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    if (asked.body.data.pending === 0) return asked;
    touchInterval();
    return post('adminCompanyApprove', { grant_id: asked.body.data.grant_id }, second);
  };
  const { name } = company;
  touchInterval();
  expect((await post('adminCompanyView', {})).status).toBe(200);
  touchInterval();
  const limits = await applied({ limits: { sms_per_hour: 5000, verifies_per_address: null } });
  expect(limits.status, JSON.stringify(limits.body)).toBe(200);
  expect((await applied({ sms_countries: ['US'] })).status).toBe(200);
  const texts = await applied({
    name: `${name} Pay`,
    sms_text: { templates: { en: 'Your {brand} code: {code}' }, default_language: 'en', app_hash: 'FA+9qCX9VSu' },
    phone_change_texts: { en: 'Your {brand} account moved to another number.' },
  });
  expect(texts.status, JSON.stringify(texts.body)).toBe(200);
  const tooLong = `{code} ${'Keep it to yourself. '.repeat(16)}`;
  expect((await post('adminCompanyUpdate', { sms_text: { templates: { en: tooLong } } })).status).toBe(400);
  const back = await applied({
    name,
    sms_text: { templates: { en: null }, default_language: null, app_hash: null },
    phone_change_texts: { en: null },
    limits: { sms_per_hour: null },
    sms_countries: 'all',
  });
  expect(back.status, JSON.stringify(back.body)).toBe(200);
}

/** The profile: read; names and an email held from an SMS-strength session, another user's email refused, the held email landing at a read (its claim moved); a strong session's change at once; the export held. */
async function accountFlows(): Promise<void> {
  const [ada, grace] = [await signUp(recorded, company), await signUp(recorded, company)];
  const update = (body: unknown) => invoke(handlers.userProfileUpdate, { path: '/u', headers: headers(ada.authorization), body });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(ada.authorization) })).status).toBe(200);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  // From the registration's session (SMS-strength) names and email wait (contract 3.15): held, the
  // second replacing the first, another user's email refused; the image changes at once.
  expect((await update({ first_name: 'Augusta', last_name: 'King' })).body.data.pending).toBe(1);
  expect((await update({ email: `ada.${ada.userId}@example.com`, image: 'https://example.com/ada.png' })).body.data.pending).toBe(1);
  expect((await update({ email: grace.registration.email })).status).toBe(409);
  // Due, it lands at the next profile read (the email's claim moved); from a strong session all at once.
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const later = await logIn(recorded, company, ada);
  const read = await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(later) });
  expect(read.body.data.user.email).toBe(`ada.${ada.userId}@example.com`);
  const strongUser = await signUpWithDevice(recorded, company);
  const strong = await strongSession(recorded, company, strongUser.device);
  const strongUpdate = { first_name: 'Grace', email: `strong.${strongUser.account.userId}@example.com` };
  const updated = await invoke(handlers.userProfileUpdate, { path: '/u', headers: headers(strong), body: strongUpdate });
  expect(updated.body.data.user.email).toBe(strongUpdate.email);
  // From an OTP login's session (SMS-strength) the export is held (contract 3.15), then delivered once due.
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const exported = (authorization: string) => invoke(handlers.userExport, { method: 'GET', path: '/e', headers: headers(authorization) });
  expect((await exported(later)).body.data.pending).toBe(1);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  expect((await exported(await logIn(recorded, company, ada))).body.data.user.user_id).toBe(ada.userId);
}

/**
 * A phone change: refused a session begun by registration (touched after the touch interval), then
 * made at once by a fresh PIN login's session with more other sessions than its transaction ends
 * (the rest go first, in batches), and again to a number taken from a holder who never proved it;
 * the old number's warning is queued. Then from an OTP login's session (contract 3.11, round 5): a
 * wrong login PIN, a pending change, one replacing it, its cancel and an unknown one's, the profile
 * showing one; after the hold, a login to the new number that completes it, one that takes the
 * number from a holder who registered it meanwhile without proving it, and one that finds it taken
 * meanwhile by a proven registration (the change void).
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
  // changes/cancel takes a phone change too (its index by the new number freed).
  const another = await pending(randomPhoneNumber());
  const cancelled = await invoke(handlers.userChangesCancel, {
    path: '/x',
    headers: headers(otp),
    body: { change_id: another.body.data.change_id },
  });
  expect(cancelled.body.data.kind).toBe('phone');
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
  /** Another pending change of the user, from the number they are at now, waited out. */
  const changeAgain = async (from: string, to: string) => {
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const otpAgain = await logIn(recorded, company, { ...account, registration: { ...account.registration, phone_number: from } });
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const proof = await provePhone(recorded, company, to, { authorization: otpAgain });
    expect((await change(otpAgain, to, proof, PINS.login_pin)).body.data.pending).toBe(1);
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  };
  // One whose number a registration takes between the code and its verify without proving it: the
  // completion reclaims it (the holder's record, email claim and session).
  const reclaimed = randomPhoneNumber();
  await changeAgain(completing, reclaimed);
  const verifyReclaimed = await loginTo(reclaimed);
  expect((await verifyReclaimed(() => signUp(recorded, company, { phone_number: reclaimed }))).status).toBe(200);
  // And one whose number a registration that proved it takes meanwhile: the change void.
  const voided = randomPhoneNumber();
  await changeAgain(reclaimed, voided);
  const verifyVoided = await loginTo(voided);
  const provenRegistration = async () => {
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const proof = await provePhone(recorded, company, voided);
    return signUp(recorded, company, { phone_number: voided, phone_verification_token: proof });
  };
  expect((await verifyVoided(provenRegistration)).status).toBe(409);
}
