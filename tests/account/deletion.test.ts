// Account deletion (API contract 3.11 and 3.15, second reading): from a fresh strong session the user
// becomes 4 (deletion requested), every session and device goes, the phone and email are free at
// once, and no login code reaches the phone; an operator's user:restore undoes it before erasure.
// From an SMS-strength session (a SIM swapper's OTP login) the deletion is held: the number warned,
// cancellable from any session, put in place once due with the phone and email still claimed.
import { BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { newId } from '../../lib/ids.js';
import { deviceIndexKey, emailClaimKey, type ItemKey, phoneClaimKey, sessionKey, userDeviceKey, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { main as restoreUser } from '../../scripts/restore-user.js';
import { PINS, pinLogin, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import {
  type Account,
  expectFailure,
  invoke,
  logIn,
  newCompany,
  outboxMessages,
  runOperator,
  signUp,
  testService,
  tokenStatus,
} from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const deleteAccount = (authorization: string) =>
  invoke(service.handlers.userDelete, {
    path: '/wallet/v3/user/delete',
    headers: { CompanyID: company.company_id, Authorization: authorization },
    body: {},
  });

async function item(key: ItemKey): Promise<Record<string, any> | undefined> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }),
  );
  return Item;
}

const phoneE164 = (account: Account) => `+1${account.registration.phone_number}`;
const email = (account: Account) => String(account.registration.email);
const phoneClaim = (account: Account) => item(phoneClaimKey(company.company_id, phoneE164(account), 2));
const emailClaim = (account: Account) => item(emailClaimKey(company.company_id, email(account), 2));

const runRestore = (args: string[]) => runOperator(restoreUser, args);

/** A fresh strong session (a PIN login on the device bound at registration) of a new user with a device. */
async function strongAccount(): Promise<{ account: Account; fresh: string }> {
  const { account, device } = await signUpWithDevice(service, company);
  return { account, fresh: await strongSession(service, company, device) };
}

describe('POST /wallet/v3/user/delete', () => {
  it('is refused (400, code 14) without a login by OTP or PIN under 10 minutes old, and deletes nothing', async () => {
    const account = await signUp(service, company);
    // The registration's own session is no fresh proof of the holder.
    expectFailure(await deleteAccount(account.authorization), 400, 14);
    const otpSession = await logIn(service, company, account);
    service.clock.advance(601);
    expectFailure(await deleteAccount(otpSession), 400, 14);
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(1);
    expect((await phoneClaim(account))?.user_id).toBe(account.userId);
    expect(await tokenStatus(service, company, otpSession)).toBe(200);
    expectFailure(
      await invoke(service.handlers.userDelete, { path: '/wallet/v3/user/delete', headers: { CompanyID: company.company_id }, body: {} }),
      401,
      4,
    );
  });

  it('is refused a strong session proven over STEP_UP_MAX_AGE_SECONDS ago (403, code 5, needs strong_fresh), and deletes nothing', async () => {
    const { account, fresh } = await strongAccount();
    service.clock.advance(service.app.config.stepUpMaxAgeSeconds);
    const stale = await deleteAccount(fresh);
    expectFailure(stale, 403, 5);
    expect(stale.body.data).toMatchObject({ needs: 'strong_fresh' });
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(1);
    expect(await tokenStatus(service, company, fresh)).toBe(200);
  });

  it('ends every session and device, refuses the tokens and login codes at once, and frees the phone and email', async () => {
    const { account, device } = await signUpWithDevice(service, company, { device_id: 'pixel-8' });
    const fresh = await strongSession(service, company, device);
    const before = Math.floor(service.clock.now() / 1000);
    const answer = await deleteAccount(fresh);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const eraseAfter = answer.body.data.erase_after;
    expect(answer.body.data).toEqual({ message: 'Account deleted', erase_after: expect.any(Number) });
    // ACCOUNT_ERASE_AFTER_DAYS: 30 by default.
    expect(eraseAfter - 30 * 24 * 3600).toBeGreaterThanOrEqual(before);
    expect(eraseAfter - 30 * 24 * 3600).toBeLessThanOrEqual(Math.floor(service.clock.now() / 1000));

    const user = await item(userKey(company.company_id, account.userId));
    expect(user).toMatchObject({ status_id: 4, erase_after: eraseAfter, device_count: 0 });
    // Kept until erasure, for user:restore.
    expect(user).toMatchObject({ phone_e164: phoneE164(account), email: email(account) });
    const partition = await queryPartitionPrefix(service.app.table, userKey(company.company_id, account.userId).pk, '');
    // No device left, and every session marked ended by the deletion (read as absent; session.ended says why).
    expect(partition.filter((entry) => /^DEVICE#/.test(String(entry.sk)))).toEqual([]);
    expect(partition.filter((entry) => /^SESSION#/.test(String(entry.sk))).map((entry) => entry.ended_reason)).toEqual(
      expect.arrayContaining(['deleted']),
    );
    expect(partition.filter((entry) => /^SESSION#/.test(String(entry.sk)) && entry.ended_reason !== 'deleted')).toEqual([]);
    expect(await item({ pk: `C#${company.company_id}#DEVICE#${device.deviceKey}`, sk: 'DEVICE' })).toBeUndefined();

    // Access tokens and refresh tokens: 401 at once.
    expect(await tokenStatus(service, company, account.authorization)).toBe(401);
    expect(await tokenStatus(service, company, fresh)).toBe(401);
    const refresh = await invoke(service.handlers.tokenRefresh, {
      path: '/wallet/v3/auth/token/refresh',
      headers: { CompanyID: company.company_id },
      body: { refresh_token: account.refreshToken },
    });
    expectFailure(refresh, 401, 4);

    // A login code: the enumeration-safe 200, and nothing sent.
    const texts = outboxMessages(service.app.config.sms.outboxFile, phoneE164(account)).length;
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const login = await invoke(service.handlers.loginPhone, {
      path: '/l',
      headers: { CompanyID: company.company_id },
      body: { dial_code: '+1', phone_number: account.registration.phone_number, user_type: 2, otp_type: 1 },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(outboxMessages(service.app.config.sms.outboxFile, phoneE164(account)).length).toBe(texts);

    // The phone and email are free: a new registration takes both at once.
    expect(await phoneClaim(account)).toBeUndefined();
    expect(await emailClaim(account)).toBeUndefined();
    const newcomer = await signUp(service, company, { phone_number: account.registration.phone_number, email: email(account) });
    expect((await phoneClaim(account))?.user_id).toBe(newcomer.userId);
    expect((await emailClaim(account))?.user_id).toBe(newcomer.userId);

    // The newcomer now holds the phone: the deleted user cannot be restored over them.
    const refused = await runRestore(['--company', company.company_id, '--user', account.userId]);
    expect(refused.code).toBe(1);
    expect(refused.last).toMatchObject({ restored: false, reason: 'phone_taken' });
    expect(refused.stderr).toMatch(/phone number/);
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(4);
  });

  it('removes the most devices with more sessions than fit beside them in one transaction (they end first)', async () => {
    const { account, fresh } = await strongAccount();
    const now = Math.floor(service.clock.now() / 1000);
    // With the one bound at registration, as many devices as a user may bind, and sessions that with the registration's and the login's
    // fit one transaction alone (80) but not beside the devices' 20 deletions.
    const devices = Array.from({ length: service.app.config.maxDevicesPerUser - 1 }, () => newId());
    const stored = [
      ...devices.flatMap((deviceKey) => [
        { ...deviceIndexKey(company.company_id, deviceKey), user_id: account.userId, user_type: 2, public_key: 'k', created_at: now },
        { ...userDeviceKey(company.company_id, account.userId, deviceKey), device_key: deviceKey, created_at: now, last_used_at: now },
      ]),
      ...Array.from({ length: 78 }, () => ({
        ...sessionKey(company.company_id, account.userId, newId()),
        user_type: 2,
        created_at: now,
        last_used_at: now,
        expires_at: now + 3600,
      })),
    ];
    for (let start = 0; start < stored.length; start += 25) {
      await service.app.table.client.send(
        new BatchWriteCommand({
          RequestItems: { [service.app.table.name]: stored.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }
    const answer = await deleteAccount(fresh);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const partition = await queryPartitionPrefix(service.app.table, userKey(company.company_id, account.userId).pk, '');
    // No device left, and every session marked ended by the deletion (read as absent; session.ended says why).
    expect(partition.filter((entry) => /^DEVICE#/.test(String(entry.sk)))).toEqual([]);
    expect(partition.filter((entry) => /^SESSION#/.test(String(entry.sk))).map((entry) => entry.ended_reason)).toEqual(
      expect.arrayContaining(['deleted']),
    );
    expect(partition.filter((entry) => /^SESSION#/.test(String(entry.sk)) && entry.ended_reason !== 'deleted')).toEqual([]);
    for (const deviceKey of devices) expect(await item(deviceIndexKey(company.company_id, deviceKey))).toBeUndefined();
  });

  it('is undone by user:restore before erasure: active again, the claims taken back, no longer due', async () => {
    const { account, fresh } = await strongAccount();
    const deleted = await deleteAccount(fresh);
    expect(deleted.status).toBe(200);
    const due = await queryPartitionPrefix(service.app.table, `C#${company.company_id}#ERASURES`, 'DUE#');
    expect(due.map((entry) => entry.user_id)).toContain(account.userId);

    const restored = await runRestore(['--company', company.company_id, '--user', account.userId]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.last).toEqual({ user_id: account.userId, status_id: 1 });
    const user = await item(userKey(company.company_id, account.userId));
    expect(user?.status_id).toBe(1);
    expect(user).not.toHaveProperty('erase_after');
    expect(await phoneClaim(account)).toMatchObject({ user_id: account.userId, status_id: 1 });
    expect((await emailClaim(account))?.user_id).toBe(account.userId);
    const dueAfter = await queryPartitionPrefix(service.app.table, `C#${company.company_id}#ERASURES`, 'DUE#');
    expect(dueAfter.map((entry) => entry.user_id)).not.toContain(account.userId);
    // The holder logs in by OTP again.
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    expect(await tokenStatus(service, company, await logIn(service, company, account))).toBe(200);

    // Restoring again: nothing awaits erasure.
    const again = await runRestore(['--company', company.company_id, '--user', account.userId]);
    expect(again.code).toBe(1);
    expect(again.last).toMatchObject({ reason: 'not_deleted' });
  });

  it('is not undone once erase_after has passed, though the eraser has not run yet: the erasure is due', async () => {
    const { account, fresh } = await strongAccount();
    expect((await deleteAccount(fresh)).status).toBe(200);
    // The day of erasure came and went; the scheduled eraser is late.
    await service.app.table.client.send(
      new UpdateCommand({
        TableName: service.app.table.name,
        Key: userKey(company.company_id, account.userId),
        UpdateExpression: 'SET erase_after = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 60 },
      }),
    );
    const refused = await runRestore(['--company', company.company_id, '--user', account.userId]);
    expect(refused.code).toBe(1);
    expect(refused.last).toMatchObject({ restored: false, reason: 'erasure_due' });
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(4);
    expect(await phoneClaim(account)).toBeUndefined();
  });
});

describe('POST /wallet/v3/user/delete from an SMS-strength session (held, contract 3.15 second reading)', () => {
  const profile = (authorization: string) =>
    invoke(service.handlers.userProfile, {
      method: 'GET',
      path: '/wallet/v3/user/profile',
      headers: { CompanyID: company.company_id, Authorization: authorization },
    });
  const texts = (account: Account) => outboxMessages(service.app.config.sms.outboxFile, phoneE164(account)).length;
  const cancel = (authorization: string, changeId: string) =>
    invoke(service.handlers.userChangesCancel, {
      path: '/wallet/v3/user/changes/cancel',
      headers: { CompanyID: company.company_id, Authorization: authorization },
      body: { change_id: changeId },
    });

  it('a SIM swapper’s OTP session gets a held deletion the owner cancels: nothing deleted, then or after the hold', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const swapper = await logIn(service, company, account);
    const before = texts(account);
    const asked = Math.floor(service.clock.now() / 1000);
    const held = await deleteAccount(swapper);
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.data).toEqual({
      message: 'Account deletion pending',
      pending: 1,
      change_id: expect.any(String),
      effective_at: expect.any(Number),
    });
    // Held from the second the request was answered in: between the seconds it was sent and answered.
    const heldFrom = held.body.data.effective_at - service.app.config.phoneChangeHoldHours * 3600;
    expect(heldFrom).toBeGreaterThanOrEqual(asked);
    expect(heldFrom).toBeLessThanOrEqual(Math.floor(service.clock.now() / 1000));
    // The number is warned; the account, its sessions and its claims are as they were.
    expect(texts(account)).toBe(before + 1);
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(1);
    expect(await tokenStatus(service, company, swapper)).toBe(200);
    expect((await phoneClaim(account))?.user_id).toBe(account.userId);
    // The owner's app lists it, and the owner's strong session cancels it.
    const owner = await strongSession(service, company, device);
    const listed = await profile(owner);
    expect(listed.body.data.pending_changes).toEqual([
      expect.objectContaining({ change_id: held.body.data.change_id, kind: 'delete', via: 'user' }),
    ]);
    expect((await cancel(owner, held.body.data.change_id)).status).toBe(200);
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600 + 1);
    const later = await strongSession(service, company, device);
    expect((await profile(later)).body.data.pending_changes).toEqual([]);
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(1);
  });

  it('answers a retry with its Idempotency-Key as the first, one change and one warning', async () => {
    const account = await signUp(service, company);
    const session = await logIn(service, company, account);
    const keyed = () =>
      invoke(service.handlers.userDelete, {
        path: '/wallet/v3/user/delete',
        headers: { CompanyID: company.company_id, Authorization: session, 'Idempotency-Key': `${newId()}k` },
        body: {},
      });
    const key = newId();
    const once = () =>
      invoke(service.handlers.userDelete, {
        path: '/wallet/v3/user/delete',
        headers: { CompanyID: company.company_id, Authorization: session, 'Idempotency-Key': key },
        body: {},
      });
    const first = await once();
    const again = await once();
    expect(again.body.data).toEqual(first.body.data);
    // A new request of the same strength replaces it (one pending change per kind).
    const replaced = await keyed();
    expect(replaced.body.data.pending).toBe(1);
    expect(replaced.body.data.change_id).not.toBe(first.body.data.change_id);
    const listed = await profile(session);
    expect(listed.body.data.pending_changes.filter((change: { kind: string }) => change.kind === 'delete')).toHaveLength(1);
  });

  it('lands once due at the next profile read: deleted, sessions and devices gone, the phone and email still claimed until erasure', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const session = await logIn(service, company, account);
    expect((await deleteAccount(session)).body.data.pending).toBe(1);
    // Not due yet: the read answers it pending.
    expect((await profile(session)).body.data.pending_changes).toEqual([expect.objectContaining({ kind: 'delete' })]);
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
    const late = await logIn(service, company, account);
    expectFailure(await profile(late), 401, 4);
    const user = await item(userKey(company.company_id, account.userId));
    expect(user).toMatchObject({ status_id: 4, device_count: 0 });
    expect(await tokenStatus(service, company, late)).toBe(401);
    expect(await item({ pk: `C#${company.company_id}#DEVICE#${device.deviceKey}`, sk: 'DEVICE' })).toBeUndefined();
    // The claims stay the user's (the phone's marked deletion requested): no one registers the number meanwhile.
    expect(await phoneClaim(account)).toMatchObject({ user_id: account.userId, status_id: 4 });
    expect((await emailClaim(account))?.user_id).toBe(account.userId);
    const registered = await invoke(service.handlers.userRegister, {
      path: '/wallet/v3/user/register',
      headers: { CompanyID: company.company_id },
      body: { ...account.registration, email: `other.${newId()}@example.com` },
    });
    expect(registered.status).toBeGreaterThanOrEqual(400);
    expect(registered.status).toBeLessThan(500);
    // No login code reaches the number.
    const before = texts(account);
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    await invoke(service.handlers.loginPhone, {
      path: '/l',
      headers: { CompanyID: company.company_id },
      body: { dial_code: '+1', phone_number: account.registration.phone_number, user_type: 2, otp_type: 1 },
    });
    expect(texts(account)).toBe(before);
    // user:restore takes the kept claims back.
    const restored = await runRestore(['--company', company.company_id, '--user', account.userId]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(await phoneClaim(account)).toMatchObject({ user_id: account.userId, status_id: 1 });
  });

  it('lands once due at a PIN login on the user’s device (401), and not before', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    expect((await deleteAccount(await logIn(service, company, account))).body.data.pending).toBe(1);
    expect(await strongSession(service, company, device)).toMatch(/^Token /);
    service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 401, 4);
    expect((await item(userKey(company.company_id, account.userId)))?.status_id).toBe(4);
  });
});
