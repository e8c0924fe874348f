// Passkeys (API contract 3.16 and the passkey parts of 3.15's second reading) against DynamoDB Local,
// with a software authenticator (tests/harness/soft-authenticator.ts): registration from a fresh
// strong session, a login on a "new phone" holding the synced credential, and every refusal the
// issue lists answered 401 code 4 or 400 code 1 with nothing written.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { updateCompanySettings } from '../../lib/companies/companies.js';
import { withoutAttestationStatement } from '../../lib/passkeys/passkey-attestation.js';
import { LIVE_HOLDER_DAYS } from '../../lib/registration/live-holder.js';
import { verifyStaffChain } from '../../lib/staff/staff-chain-verify.js';
import { STAFF_ACTION_PREFIX, userKey, userPasskeyKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { staffMember } from '../admin/staff.js';
import { type Device, otpLogin, PINS, signUpWithDevice, strongSession, tokenWorks } from '../devices/device-helpers.js';
import { SoftAuthenticator } from '../harness/soft-authenticator.js';
import {
  type Account,
  codeIn,
  expectFailure,
  invoke,
  newCompany,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  sampleRegistration,
  testService,
} from '../helpers.js';

const service = testService();
const ORIGIN = 'https://wallet.example.com';
const webauthn = { rp_id: 'wallet.example.com', origins: [ORIGIN, `android:apk-key-hash:${'A'.repeat(43)}`] };
let company: Company;
let other: Company;

beforeAll(async () => {
  company = await newCompany(service);
  other = await newCompany(service);
  await updateCompanySettings(service.app.table, service.clock, company.company_id, { webauthn });
  await updateCompanySettings(service.app.table, service.clock, other.company_id, { webauthn });
  // The company cache of warm functions: read the settings at once.
  service.clock.advance(service.app.config.companyCacheSeconds + 1);
});

afterEach(() => service.clock.reset());

const call = (
  handler: keyof typeof service.handlers,
  path: string,
  { authorization, body, at = company, method = 'POST' }: { authorization?: string; body?: unknown; at?: Company; method?: string },
) =>
  invoke(service.handlers[handler], {
    method,
    path,
    headers: { CompanyID: at.company_id, ...(authorization ? { Authorization: authorization } : {}) },
    ...(body !== undefined ? { body } : {}),
  });

async function withPasskey(
  at = company,
  phone = new SoftAuthenticator(),
): Promise<{ account: Account; device: Device; strong: string; phone: SoftAuthenticator; passkeyId: string }> {
  const { account, device } = await signUpWithDevice(service, at);
  const strong = await strongSession(service, at, device);
  const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {}, at });
  expect(options.status, JSON.stringify(options.body)).toBe(200);
  const registered = await call('passkeysRegister', '/r', {
    authorization: strong,
    body: { ...phone.create(options.body.data.options, ORIGIN), name: 'My phone' },
    at,
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  return { account, device, strong, phone, passkeyId: registered.body.data.passkey_id };
}

async function loginOptions(body: unknown = {}, at = company) {
  const answer = await call('passkeysLoginOptions', '/lo', { body, at });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data.options;
}

/** Runs a request whose transactions commit and then lose their answer on the way back (a 503 whose write landed). */
async function answerLostAfterTransaction<Answered>(request: () => Promise<Answered>): Promise<Answered> {
  const client = service.app.table.client;
  const send = client.send.bind(client);
  client.send = (async (command: { constructor: { name: string } }) => {
    const result = await send(command as never);
    if (command.constructor.name === 'TransactWriteCommand') throw Object.assign(new Error('the answer was lost'), { $fault: 'server' });
    return result;
  }) as typeof client.send;
  try {
    return await request();
  } finally {
    client.send = send;
  }
}

/** Creation options for a fresh user's strong session, to build a response from. */
async function registerOptionsOfNewUser() {
  const { device } = await signUpWithDevice(service, company);
  const strong = await strongSession(service, company, device);
  const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {} });
  expect(options.status, JSON.stringify(options.body)).toBe(200);
  return options.body.data.options;
}

const login = (body: unknown, at = company) => call('passkeysLogin', '/l', { body, at });
const login_ = async (phone: SoftAuthenticator) => login(phone.get(await loginOptions(), ORIGIN));

describe('passkeys (API contract 3.16)', () => {
  it('done when: registered from a strong session, a login on a new phone holding the synced passkey is strong and moves the number at once', async () => {
    const { account, phone, passkeyId } = await withPasskey();
    const newPhone = phone.clone();
    const answer = await login(newPhone.get(await loginOptions(), ORIGIN));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toMatchObject({ user_id: account.userId, pending_changes: [], probation_devices: [] });
    const claims = decodeJwt(answer.body.data.token.token);
    expect(claims).toMatchObject({ acr: 'strong', amr: ['hwk', 'user'] });
    const authorization = `Token ${answer.body.data.token.token}`;

    const newNumber = sampleRegistration().phone_number as string;
    const proof = await provePhone(service, company, newNumber, { authorization });
    const change = await call('userPhoneChange', '/wallet/v3/user/phone/change', {
      authorization,
      body: { dial_code: '+1', phone_number: newNumber, phone_verification_token: proof, login_pin: PINS.login_pin },
    });
    expect(change.status, JSON.stringify(change.body)).toBe(200);
    expect(change.body.data.pending ?? 0).toBe(0);

    const listed = await call('passkeys', '/p', { authorization, method: 'GET' });
    expect(listed.body.data.passkeys).toEqual([
      { passkey_id: passkeyId, name: 'My phone', created_date: expect.any(Number), last_used_date: expect.any(Number), backed_up: 1 },
    ]);
    expect(JSON.stringify(listed.body)).not.toMatch(/public_key|credential_id/);
  });

  it('logs in after a phone is typed, and answers the same shape for a phone with no account', async () => {
    const { account, phone } = await withPasskey();
    const typed = await loginOptions({ dial_code: '+1', phone_number: account.registration.phone_number });
    expect(typed.allowCredentials).toHaveLength(1);
    const ok = await login(phone.get(typed, ORIGIN));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    const unknown = await loginOptions({ dial_code: '+1', phone_number: sampleRegistration().phone_number });
    expect(Object.keys(unknown).sort()).toEqual(Object.keys(typed).sort());
    expect(unknown.allowCredentials.length).toBeGreaterThanOrEqual(1);
    expect(unknown.allowCredentials[0]).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      type: 'public-key',
      transports: expect.any(Array),
    });
  });

  it('refuses a company without webauthn settings: 400 code 1 naming webauthn', async () => {
    const bare = await newCompany(service);
    const answer = await call('passkeysLoginOptions', '/lo', { body: {}, at: bare });
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors[0].field).toBe('webauthn');
  });

  it('refuses registration from an SMS-strength session (403 code 5) and a malformed attestation (400 code 1)', async () => {
    const { account } = await signUpWithDevice(service, company);
    const sms = await otpLogin(service, company, account);
    const refused = await call('passkeysRegisterOptions', '/o', { authorization: `Token ${sms.body.data.token.token}`, body: {} });
    expectFailure(refused, 403, 5);

    const { strong } = await withPasskey();
    const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {} });
    const response = new SoftAuthenticator().create(options.body.data.options, ORIGIN);
    const broken = { ...response, response: { ...response.response, attestationObject: 'AAAA' } };
    expectFailure(await call('passkeysRegister', '/r', { authorization: strong, body: broken }), 400, 1);
    const wrongOrigin = new SoftAuthenticator().create(options.body.data.options, 'https://wallet.example.evil');
    expectFailure(await call('passkeysRegister', '/r', { authorization: strong, body: wrongOrigin }), 400, 1);
    // The challenge was not spent by the refusals: the right response still registers.
    expect((await call('passkeysRegister', '/r', { authorization: strong, body: response })).status).toBe(200);
  });

  it('drops an attestation statement sent unasked (packed self-attestation, a TPM statement no verifier accepts) and keeps the key in authData', async () => {
    for (const attestation of ['packed', 'tpm'] as const) {
      const { phone } = await withPasskey(company, new SoftAuthenticator({ attestation }));
      const sent = phone.create(await registerOptionsOfNewUser(), ORIGIN);
      const decoded = isoCBOR.decodeFirst<Map<string, unknown>>(isoBase64URL.toBuffer(sent.response.attestationObject));
      expect(decoded.get('fmt')).toBe(attestation);
      const dropped = isoCBOR.decodeFirst<Map<string, unknown>>(
        isoBase64URL.toBuffer(withoutAttestationStatement(sent.response.attestationObject)),
      );
      expect([dropped.get('fmt'), (dropped.get('attStmt') as Map<string, unknown>).size]).toEqual(['none', 0]);
      expect(dropped.get('authData')).toEqual(decoded.get('authData'));
      // The key registered is the one in authData: the passkey logs in.
      const answer = await login_(phone);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    const none = new SoftAuthenticator().create(await registerOptionsOfNewUser(), ORIGIN).response.attestationObject;
    expect(withoutAttestationStatement(none)).toBe(none);
    expect(withoutAttestationStatement('AAAA')).toBe('AAAA');
  });

  it('answers a retry whose first run added the passkey (its answer lost: 503) with that passkey, adding nothing again', async () => {
    const { device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {} });
    const response = { ...new SoftAuthenticator().create(options.body.data.options, ORIGIN), name: 'My phone' };
    // The transaction commits, then its answer is lost on the way back: the service answers 503.
    const first = await answerLostAfterTransaction(() => call('passkeysRegister', '/r', { authorization: strong, body: response }));
    expectFailure(first, 503, 16);
    // Its challenge is taken: the retry finds the passkey its first run added.
    const again = await call('passkeysRegister', '/r', { authorization: strong, body: response });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const listed = await call('passkeys', '/p', { authorization: strong, method: 'GET' });
    expect(listed.body.data.passkeys.map((passkey: { passkey_id: string }) => passkey.passkey_id)).toEqual([again.body.data.passkey_id]);
    // The same response from another user's session is refused as before: the passkey is not theirs.
    const { device: otherDevice } = await signUpWithDevice(service, company);
    const otherSession = await strongSession(service, company, otherDevice);
    expectFailure(await call('passkeysRegister', '/r', { authorization: otherSession, body: response }), 400, 1);
  });

  it('binds the registration challenge to the session that asked for it', async () => {
    const { device, strong } = await withPasskey();
    const another = await strongSession(service, company, device);
    const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {} });
    const response = new SoftAuthenticator().create(options.body.data.options, ORIGIN);
    expectFailure(await call('passkeysRegister', '/r', { authorization: another, body: response }), 400, 1);
  });

  it('refuses a credential id already registered in the company: 409 code 7, nothing written', async () => {
    const { phone } = await withPasskey();
    const { strong } = await withPasskey();
    const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {} });
    const same = new SoftAuthenticator().create(options.body.data.options, ORIGIN, { credentialId: phone.credentials[0]!.id });
    expectFailure(await call('passkeysRegister', '/r', { authorization: strong, body: same }), 409, 7);
  });

  it('refuses a reused challenge, a wrong origin, a wrong rp_id and an unknown credential: 401 code 4, nothing written', async () => {
    const { phone, account, passkeyId } = await withPasskey();
    const options = await loginOptions();
    const first = phone.get(options, ORIGIN);
    expect((await login(first)).status).toBe(200);
    expectFailure(await login(first), 401, 4);
    expectFailure(await login(phone.get(options, ORIGIN)), 401, 4);

    const fresh = await loginOptions();
    expectFailure(await login(phone.get(fresh, 'https://wallet.example.evil')), 401, 4);
    expectFailure(await login(phone.get(fresh, ORIGIN, { rpId: 'evil.example' })), 401, 4);
    expectFailure(await login(new SoftAuthenticator().clone().get(fresh, ORIGIN, { credential: stranger() })), 401, 4);
    // None of them spent the challenge: the right assertion still logs in.
    expect((await login(phone.get(fresh, ORIGIN))).status).toBe(200);
    const stored = await readPasskey(account.userId, passkeyId);
    expect(stored?.cloned_at).toBeUndefined();
  });

  it('accepts a counter of 0 in both places and refuses one that went back (passkey.cloned marked)', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const strong = await strongSession(service, company, device);
    const key = new SoftAuthenticator({ keepsCounter: true, backedUp: false });
    const options = await call('passkeysRegisterOptions', '/o', { authorization: strong, body: {} });
    const registered = await call('passkeysRegister', '/r', { authorization: strong, body: key.create(options.body.data.options, ORIGIN) });
    expect(registered.status).toBe(200);
    expect((await login(key.get(await loginOptions(), ORIGIN))).status).toBe(200);
    expect((await login(key.get(await loginOptions(), ORIGIN))).status).toBe(200);
    expectFailure(await login(key.get(await loginOptions(), ORIGIN, { counter: 1 })), 401, 4);
    expect((await readPasskey(account.userId, registered.body.data.passkey_id))?.cloned_at).toEqual(expect.any(Number));
  });

  it('never logs a credential of company A in to company B', async () => {
    const { phone } = await withPasskey(company);
    const options = await loginOptions({}, other);
    expectFailure(await login(phone.get(options, ORIGIN), other), 401, 4);
  });

  it('ends the sessions of a passkey whose removal landed but answered 503 when the removal is retried (404 code 6)', async () => {
    const { device, phone, passkeyId } = await withPasskey();
    const byPasskey = await login(phone.get(await loginOptions(), ORIGIN));
    const authorization = `Token ${byPasskey.body.data.token.token}`;
    const strong = await strongSession(service, company, device);
    // The removal's transaction commits, then its answer is lost: its sessions are not ended yet.
    const first = await answerLostAfterTransaction(() =>
      call('passkeysRemove', '/rm', { authorization: strong, body: { passkey_id: passkeyId } }),
    );
    expectFailure(first, 503, 16);
    expect(await tokenWorks(service, company, authorization)).toBe(true);
    // Its retry finds no passkey, and ends what the first run left.
    expectFailure(await call('passkeysRemove', '/rm', { authorization: strong, body: { passkey_id: passkeyId } }), 404, 6);
    expect(await tokenWorks(service, company, authorization)).toBe(false);
  });

  it('ends the sessions a passkey began when it is removed, and not_me removes passkeys registered lately', async () => {
    const { device, phone, passkeyId } = await withPasskey();
    const byPasskey = await login(phone.get(await loginOptions(), ORIGIN));
    const authorization = `Token ${byPasskey.body.data.token.token}`;
    expect(await tokenWorks(service, company, authorization)).toBe(true);
    const strong = await strongSession(service, company, device);
    const removed = await call('passkeysRemove', '/rm', { authorization: strong, body: { passkey_id: passkeyId } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.data.revoked).toBe(1);
    expect(await tokenWorks(service, company, authorization)).toBe(false);
    expectFailure(await login(phone.get(await loginOptions(), ORIGIN)), 401, 4);

    const again = await withPasskey();
    const secured = await call('userSecurityNotMe', '/n', { authorization: await strongSession(service, company, again.device), body: {} });
    expect(secured.status, JSON.stringify(secured.body)).toBe(200);
    expect(secured.body.data.passkeys_removed).toBe(1);
    expect(await readPasskey(again.account.userId, again.passkeyId)).toBeUndefined();
  });

  it('steps a strong session up with a passkey assertion (3.15), and never an SMS-strength one', async () => {
    const { account, phone } = await withPasskey();
    const byPasskey = await login(phone.get(await loginOptions(), ORIGIN));
    const authorization = `Token ${byPasskey.body.data.token.token}`;
    service.clock.advance(service.app.config.stepUpMaxAgeSeconds + 1);
    const stale = await call('passkeysRegisterOptions', '/o', { authorization, body: {} });
    expectFailure(stale, 403, 5);
    expect(stale.body.data.needs).toBe('strong_fresh');
    const stepped = await call('stepUp', '/s', { authorization, body: { passkey: phone.get(await loginOptions(), ORIGIN) } });
    expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
    const fresh = `Token ${stepped.body.data.token.token}`;
    expect((await call('passkeysRegisterOptions', '/o', { authorization: fresh, body: {} })).status).toBe(200);

    const sms = await otpLogin(service, company, account);
    const refused = await call('stepUp', '/s', {
      authorization: `Token ${sms.body.data.token.token}`,
      body: { passkey: phone.get(await loginOptions(), ORIGIN) },
    });
    expectFailure(refused, 403, 5);
    // Another user's passkey steps no session up.
    const stranger = await withPasskey();
    const theirs = await call('stepUp', '/s', {
      authorization: fresh,
      body: { passkey: stranger.phone.get(await loginOptions(), ORIGIN) },
    });
    expectFailure(theirs, 401, 4);
  });

  it('shows passkeys in the export and the back office’s view (never a key), and staff remove one with a reason', async () => {
    const { account, strong, passkeyId, phone } = await withPasskey();
    const exported = await call('userExport', '/e', { authorization: strong, method: 'GET' });
    expect(exported.body.data.passkeys).toEqual([expect.objectContaining({ passkey_id: passkeyId, name: 'My phone' })]);
    const agent = await staffMember(service, company, 'support');
    const viewed = await call('adminUsersView', '/v', {
      authorization: agent.session,
      body: { user_id: account.userId, reason: 'ticket 1' },
    });
    expect(viewed.status, JSON.stringify(viewed.body)).toBe(200);
    expect(viewed.body.data.passkeys).toEqual([expect.objectContaining({ passkey_id: passkeyId })]);
    expect(JSON.stringify(viewed.body)).not.toMatch(/public_key|credential_id/);

    const removed = await call('adminUsersPasskeysRemove', '/x', {
      authorization: agent.session,
      body: { user_id: account.userId, passkey_id: passkeyId, reason: 'ticket 2: phone stolen unlocked' },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expectFailure(await login(phone.get(await loginOptions(), ORIGIN)), 401, 4);
    const again = await call('adminUsersPasskeysRemove', '/x', {
      authorization: agent.session,
      body: { user_id: account.userId, passkey_id: passkeyId, reason: 'ticket 3' },
    });
    expectFailure(again, 404, 6);
  });

  it('asks an employee for a reason to add or remove their own passkey, and records each in the staff chain', async () => {
    const own = await newCompany(service);
    await updateCompanySettings(service.app.table, service.clock, own.company_id, { webauthn });
    service.clock.advance(service.app.config.companyCacheSeconds + 1);
    const agent = await staffMember(service, own, 'support');
    const records = async () =>
      (await queryPartitionPrefix(service.app.table, userKey(own.company_id, agent.userId).pk, STAFF_ACTION_PREFIX)).filter(({ action }) =>
        String(action).includes('passkey'),
      );
    const key = new SoftAuthenticator();
    const options = await call('passkeysRegisterOptions', '/o', { authorization: agent.session, body: {}, at: own });
    const created = key.create(options.body.data.options, ORIGIN);
    // With no reason: refused naming it, nothing written (the challenge is still there for the retry).
    const unexplained = await call('passkeysRegister', '/r', { authorization: agent.session, body: created, at: own });
    expectFailure(unexplained, 400, 1);
    expect(unexplained.body.data.errors).toEqual([expect.objectContaining({ field: 'reason' })]);
    expect((await call('passkeys', '/p', { authorization: agent.session, method: 'GET', at: own })).body.data.passkeys).toEqual([]);
    expect(await records()).toEqual([]);

    const added = await call('passkeysRegister', '/r', {
      authorization: agent.session,
      body: { ...created, name: 'Desk key', reason: 'ticket 7: new laptop' },
      at: own,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const passkeyId = added.body.data.passkey_id;
    const unremoved = await call('passkeysRemove', '/x', { authorization: agent.session, body: { passkey_id: passkeyId }, at: own });
    expectFailure(unremoved, 400, 1);
    const removed = await call('passkeysRemove', '/x', {
      authorization: agent.session,
      body: { passkey_id: passkeyId, reason: 'ticket 8: laptop returned' },
      at: own,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const recorded = (await records()).sort((a, b) => Number(a.seq) - Number(b.seq));
    expect(recorded.map(({ action, actor_id, reason, details }) => ({ action, actor_id, reason, details }))).toEqual([
      { action: 'self_passkey_add', actor_id: agent.userId, reason: 'ticket 7: new laptop', details: { passkey_id: passkeyId } },
      { action: 'self_passkey_remove', actor_id: agent.userId, reason: 'ticket 8: laptop returned', details: { passkey_id: passkeyId } },
    ]);
    expect(await verifyStaffChain(service.app.table, own.company_id)).toMatchObject({ whole: true });
  });

  it('records nothing in the staff chain for a customer’s passkey (no reason asked)', async () => {
    const { account } = await withPasskey();
    expect(await queryPartitionPrefix(service.app.table, userKey(company.company_id, account.userId).pk, STAFF_ACTION_PREFIX)).toEqual([]);
  });

  it('takes webauthn in company/update as a security setting (a grant another admin approves), with its refusals', async () => {
    const own = await newCompany(service);
    const admin = await staffMember(service, own, 'admin');
    const update = (webauthnSettings: unknown) =>
      call('adminCompanyUpdate', '/u', { authorization: admin.session, body: { webauthn: webauthnSettings, reason: 'ticket 9' }, at: own });
    const asked = await update(webauthn);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.data).toMatchObject({ pending: 1, grant_id: expect.any(String) });
    // Nothing in force until another admin approves it.
    expectFailure(await call('passkeysLoginOptions', '/lo', { body: {}, at: own }), 400, 1);
    for (const [bad, field] of [
      [{ rp_id: 'https://wallet.example.com', origins: [ORIGIN] }, 'webauthn.rp_id'],
      [{ rp_id: 'wallet.example.com', origins: ['http://wallet.example.com'] }, 'webauthn.origins.0'],
      [{ rp_id: 'wallet.example.com', origins: ['android:apk-key-hash:short'] }, 'webauthn.origins.0'],
      [{ rp_id: 'wallet.example.com', origins: [] }, 'webauthn.origins'],
    ] as const) {
      const refused = await update(bad);
      expectFailure(refused, 400, 1);
      expect(refused.body.data.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
  });

  it('keeps its unproven holder live: a passkey login in the last 90 days refuses a reclaim of the number (409 code 7) when the device went unused', async () => {
    const { account, phone } = await withPasskey();
    const number = String(account.registration.phone_number);
    // The device bound at registration, unused for 90 days: only the passkey's use can keep the holder live.
    service.clock.advance(LIVE_HOLDER_DAYS * 24 * 3600 + 1);
    expect((await login_(phone)).status).toBe(200);
    const proof = await provePhone(service, company, number);
    const reclaim = await call('userRegister', '/u', {
      body: sampleRegistration({ phone_number: number, phone_verification_token: proof }),
    });
    expectFailure(reclaim, 409, 7);
    // Unused for 90 days more, the passkey keeps nobody: the proven owner takes the number.
    service.clock.advance(LIVE_HOLDER_DAYS * 24 * 3600 + 1);
    const later = await provePhone(service, company, number);
    const taken = await call('userRegister', '/u', { body: sampleRegistration({ phone_number: number, phone_verification_token: later }) });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
  });

  it('removes every passkey when a recovery by support completes (3.15, second reading)', async () => {
    const { account, phone, passkeyId } = await withPasskey();
    const [agent, admin] = [await staffMember(service, company, 'support'), await staffMember(service, company, 'admin')];
    const newNumber = randomPhoneNumber();
    const staffCall = (handler: keyof typeof service.handlers, by: string, body: Record<string, unknown>) =>
      call(handler, '/a', { authorization: by, body });
    const recovered = await staffCall('adminUsersPhoneRecover', agent.session, {
      user_id: account.userId,
      dial_code: '+1',
      phone_number: newNumber,
      reason: 'ticket 51: lost phone, ID checked',
    });
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
    const changeId = recovered.body.data.change_id;
    const approved = await staffCall('adminUsersPhoneApprove', admin.session, {
      user_id: account.userId,
      change_id: changeId,
      reason: 'ok',
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600 + 120);
    const target = { dial_code: '+1', phone_number: newNumber, user_type: 2, otp_type: 1 };
    await invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body: target });
    const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${newNumber}`).at(-1));
    const login = await invoke(service.handlers.verifyOtp, {
      path: '/v',
      headers: { CompanyID: company.company_id },
      body: { ...target, otp: code },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(await readPasskey(account.userId, passkeyId)).toBeUndefined();
    expectFailure(await login_(phone), 401, 4);
  });
});

function stranger() {
  const lone = new SoftAuthenticator();
  lone.create({ rp: { id: 'wallet.example.com' }, user: { id: 'AAAA' }, challenge: 'x' }, ORIGIN);
  return lone.credentials[0]!;
}

async function readPasskey(userId: string, passkeyId: string) {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: userPasskeyKey(company.company_id, userId, passkeyId), ConsistentRead: true }),
  );
  return Item;
}
