// Assisted recovery (API contract 3.14), against DynamoDB Local: support starts a pending phone
// change for a user who lost the number and every device; it runs only once another employee, an
// admin, approves it; then it is the user's pending change (hold, old number warned, cancellable by
// any live session), and only a code sent to the new number completes it, removing every device and
// ending every session (reason recovered). Support never sets a credential.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { BUILT_IN_WARNING_TEXTS, warningMessage } from '../../lib/companies/security-warning-texts.js';
import { setStatusEndingSessions } from '../../lib/sessions/end-sessions.js';
import { queryUserDevices } from '../../lib/store/device-store.js';
import { STAFF_ACTION_PREFIX, sessionKey, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { getPendingPhoneChange } from '../../lib/store/pending-change-store.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { getUser } from '../../lib/store/user-store.js';
import { noticeEvents as sharedNoticeEvents, signUpWithDevice, strongSession, tokenWorks } from '../devices/device-helpers.js';
import {
  type Account,
  codeIn,
  expectFailure,
  invoke,
  newCompany,
  nextHourStart,
  outboxMessages,
  randomPhoneNumber,
  sessionIdOf,
  signUp,
  testService,
} from '../helpers.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let agent: StaffMember;
let admin: StaffMember;
let secondAdmin: StaffMember;
const HOLD_SECONDS = 24 * 3600;

beforeAll(async () => {
  company = await newCompany(service);
  [agent, admin, secondAdmin] = [
    await staffMember(service, company, 'support'),
    await staffMember(service, company, 'admin'),
    await staffMember(service, company, 'admin'),
  ];
});

afterEach(() => service.clock.reset());

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const post = (handler: keyof typeof service.handlers, authorization: string, body: Record<string, unknown>) =>
  invoke(service.handlers[handler], { path: '/a', headers: headers(authorization), body });
const recover = (by: StaffMember, userId: string, phoneNumber: string, extra: Record<string, unknown> = {}) =>
  post('adminUsersPhoneRecover', by.session, {
    user_id: userId,
    dial_code: '+1',
    phone_number: phoneNumber,
    reason: 'ticket 9120: lost phone, ID checked',
    ...extra,
  });
const approve = (by: StaffMember, userId: string, changeId: string) =>
  post('adminUsersPhoneApprove', by.session, { user_id: userId, change_id: changeId, reason: 'ticket 9120 approved' });
const supportCancel = (by: StaffMember, userId: string, changeId: string) =>
  post('adminUsersPhoneCancel', by.session, { user_id: userId, change_id: changeId, reason: 'call 8830: not the customer' });
const profile = (authorization: string) =>
  invoke(service.handlers.userProfile, { method: 'GET', path: '/p', headers: headers(authorization) });
const outbox = (phoneNumber: string) => outboxMessages(service.app.config.sms.outboxFile, `+1${phoneNumber}`);
const noticeEvents = (userId: string) => sharedNoticeEvents(service, company, userId);
const target = (phoneNumber: string) => ({ dial_code: '+1', phone_number: phoneNumber, user_type: 2, otp_type: 1 });

/** An OTP login to a number: the code it sent (none: undefined) and, with one, the verify's answer. */
async function otpLoginTo(phoneNumber: string) {
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const before = outbox(phoneNumber).length;
  await invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body: target(phoneNumber) });
  const sent = outbox(phoneNumber);
  if (sent.length === before) return undefined;
  return invoke(service.handlers.verifyOtp, {
    path: '/v',
    headers: { CompanyID: company.company_id },
    body: { ...target(phoneNumber), otp: codeIn(sent.at(-1)) },
  });
}

async function endedReasonOf(account: Account): Promise<string | undefined> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({
      TableName: service.app.table.name,
      Key: sessionKey(company.company_id, account.userId, sessionIdOf(account.authorization)),
      ConsistentRead: true,
    }),
  );
  return Item?.ended_reason;
}

async function staffActionsOn(userId: string): Promise<string[]> {
  const items = await queryPartitionPrefix(service.app.table, userKey(company.company_id, userId).pk, STAFF_ACTION_PREFIX);
  return items.map((item) => `${item.action} by ${item.actor_id}`);
}

describe('assisted recovery', () => {
  it('starts awaiting approval: nothing sent, nothing shown to the user, recorded with notice 8', async () => {
    const { account } = await signUpWithDevice(service, company);
    const oldNumber = String(account.registration.phone_number);
    const newNumber = randomPhoneNumber();
    const toldBefore = outbox(oldNumber).length;
    // Stopped: the request's second is this one, however long it takes (afterEach lets the clock run again).
    const now = Math.floor(service.clock.stop() / 1000);
    const started = await recover(agent, account.userId, newNumber);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.data).toEqual({
      message: expect.any(String),
      change_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      approve_by: now + 72 * 3600,
    });
    expect(outbox(oldNumber)).toHaveLength(toldBefore);
    expect((await profile(account.authorization)).body.data.pending_phone_change).toBeNull();
    expect(await noticeEvents(account.userId)).toContain(8);
    expect(await noticeEvents(account.userId)).not.toContain(9);
    expect(await staffActionsOn(account.userId)).toEqual([`phone_recover by ${agent.userId}`]);
    // Staff see it in the view, awaiting approval: the approving admin takes its change_id from there.
    const viewed = await post('adminUsersView', admin.session, { user_id: account.userId, reason: 'ticket 9120: approve?' });
    expect(viewed.body.data.pending_phone_change).toEqual({
      change_id: started.body.data.change_id,
      effective_at: now + 72 * 3600,
      phone_last4: newNumber.slice(-4),
      via: 'support',
      awaiting_approval: 1,
      started_by: agent.userId,
    });
    // Not due: a login to the new number, even past the hold, sends nothing while it awaits approval.
    service.clock.advance(HOLD_SECONDS + 60);
    expect(await otpLoginTo(newNumber)).toBeUndefined();
  });

  it('is approved only by another employee, an admin: support 403 code 5, the starter 403 code 5', async () => {
    const { account } = await signUpWithDevice(service, company);
    const changeId = (await recover(admin, account.userId, randomPhoneNumber())).body.data.change_id;
    expectFailure(await approve(agent, account.userId, changeId), 403, 5);
    expectFailure(await approve(admin, account.userId, changeId), 403, 5);
    expectFailure(await approve(secondAdmin, account.userId, '0'.repeat(32)), 404, 6);
    const approved = await approve(secondAdmin, account.userId, changeId);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    // The same admin's approval sent again (its answer lost) has the same answer; no one else finds one awaiting.
    expect((await approve(secondAdmin, account.userId, changeId)).body.data).toEqual(approved.body.data);
    expectFailure(await approve(admin, account.userId, changeId), 404, 6);
  });

  it('runs once approved: the hold, the old number warned, notice 9, the profile shows it; completes by the new number’s code, removing every device and session', async () => {
    const { account } = await signUpWithDevice(service, company);
    const oldNumber = String(account.registration.phone_number);
    const newNumber = randomPhoneNumber();
    const changeId = (await recover(agent, account.userId, newNumber)).body.data.change_id;
    const toldBefore = outbox(oldNumber).length;
    // Stopped: the approval's second is this one, however long it takes.
    const now = Math.floor(service.clock.stop() / 1000);
    const approved = await approve(admin, account.userId, changeId);
    expect(approved.body.data).toEqual({ message: expect.any(String), change_id: changeId, effective_at: now + HOLD_SECONDS });
    expect(outbox(oldNumber)).toHaveLength(toldBefore + 1);
    expect(outbox(oldNumber).at(-1)).toBe(warningMessage(BUILT_IN_WARNING_TEXTS.phone, company.name));
    expect(await noticeEvents(account.userId)).toContain(9);
    expect((await profile(account.authorization)).body.data.pending_phone_change).toEqual({
      change_id: changeId,
      effective_at: now + HOLD_SECONDS,
      phone_last4: newNumber.slice(-4),
    });
    // The user's sessions and devices live through the hold: the owner can still cancel.
    expect(await tokenWorks(service, company, account.authorization)).toBe(true);
    expect(await queryUserDevices(service.app.table, company.company_id, account.userId)).toHaveLength(1);
    service.clock.advance(HOLD_SECONDS - 120);
    expect(await otpLoginTo(newNumber)).toBeUndefined();
    service.clock.advance(240);
    const login = await otpLoginTo(newNumber);
    expect(login?.status, JSON.stringify(login?.body)).toBe(200);
    expect(login!.body.data.user_id).toBe(account.userId);
    const user = (await getUser(service.app.table, company.company_id, account.userId, true))!;
    expect(user).toMatchObject({ phone_number: newNumber, phone_verified: 1, device_count: 0 });
    expect(await queryUserDevices(service.app.table, company.company_id, account.userId)).toEqual([]);
    expect(await endedReasonOf(account)).toBe('recovered');
    expect(await getPendingPhoneChange(service.app.table, company.company_id, account.userId, true)).toBeUndefined();
    expect(await staffActionsOn(account.userId)).toEqual([`phone_recover by ${agent.userId}`, `phone_approve by ${admin.userId}`]);
  });

  it('is cancelled once it runs by a strong session on a credential older than the recovery (an SMS-strength one: 403 code 5), or by support before or after approval', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    // The recovery begins after the device was bound (a second on): the device is the older credential.
    service.clock.advance(1);
    const first = (await recover(agent, account.userId, randomPhoneNumber())).body.data.change_id;
    expect((await approve(admin, account.userId, first)).status).toBe(200);
    const cancel = (authorization: string) =>
      invoke(service.handlers.userPhoneChangeCancel, { path: '/c', headers: headers(authorization), body: { change_id: first } });
    // Whoever holds the SIM must not undo the owner's way back (contract 3.15, second reading).
    const bySms = await cancel(account.authorization);
    expectFailure(bySms, 403, 5);
    expect(bySms.body.data.needs).toBe('strong');
    // The owner's settled device, bound before the recovery began.
    const cancelled = await cancel(await strongSession(service, company, device));
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await noticeEvents(account.userId)).toContain(10);
    expectFailure(await approve(secondAdmin, account.userId, first), 404, 6);
    // Support cancels one still awaiting approval; an unknown id is 404 code 6.
    const second = (await recover(agent, account.userId, randomPhoneNumber())).body.data.change_id;
    expectFailure(await supportCancel(agent, account.userId, '0'.repeat(32)), 404, 6);
    expect((await supportCancel(agent, account.userId, second)).body.data).toEqual({
      message: 'Phone number change cancelled',
      change_id: second,
    });
    expectFailure(await approve(admin, account.userId, second), 404, 6);
    expect(await staffActionsOn(account.userId)).toContain(`phone_cancel by ${agent.userId}`);
  });

  it('refuses a number another user holds (409 code 7), the account’s own or a bad one (400), a customer (403 code 5), an unknown user (404 code 6)', async () => {
    const { account } = await signUpWithDevice(service, company);
    const other = await signUp(service, company);
    const taken = await recover(agent, account.userId, String(other.registration.phone_number));
    expectFailure(taken, 409, 7);
    expectFailure(await recover(agent, account.userId, String(account.registration.phone_number)), 400, 1);
    expectFailure(await recover(agent, account.userId, '123'), 400, 1);
    expectFailure(await recover(agent, account.userId, randomPhoneNumber(), { reason: '' }), 400, 1);
    const asCustomer = await post('adminUsersPhoneRecover', other.authorization, {
      user_id: account.userId,
      dial_code: '+1',
      phone_number: randomPhoneNumber(),
      reason: 'x',
    });
    expectFailure(asCustomer, 403, 5);
    expectFailure(await recover(agent, '0'.repeat(32), randomPhoneNumber()), 404, 6);
    // A disabled account is enabled by an admin first: 409 code 23 naming user_id.
    const disabled = await signUp(service, company);
    await setStatusEndingSessions(service.app, company.company_id, disabled.userId, UserStatus.DISABLED);
    const refused = await recover(agent, disabled.userId, randomPhoneNumber());
    expectFailure(refused, 409, 23);
    expect(refused.body.data.errors[0].field).toBe('user_id');
    // Nothing started by any of them.
    expect(await getPendingPhoneChange(service.app.table, company.company_id, account.userId, true)).toBeUndefined();
  });

  it('acts in its own company only: another company’s user is 404 code 6', async () => {
    const elsewhere = await newCompany(service);
    const stranger = await signUp(service, elsewhere);
    expectFailure(await recover(agent, stranger.userId, randomPhoneNumber()), 404, 6);
    expect(await getPendingPhoneChange(service.app.table, elsewhere.company_id, stranger.userId, true)).toBeUndefined();
  });
});

describe('recover and cancel follow the rules of the other actions (round 6)', () => {
  it('finding 2: support starts or cancels nothing on an employee’s account, nor anyone on their own (403 code 5)', async () => {
    const refused = async (answer: Promise<Awaited<ReturnType<typeof post>>>) => expectFailure(await answer, 403, 5);
    await refused(recover(agent, admin.userId, randomPhoneNumber()));
    await refused(recover(agent, agent.userId, randomPhoneNumber()));
    await refused(recover(admin, admin.userId, randomPhoneNumber()));
    // An admin may start one for an employee; support may not cancel it, the admin who did may.
    const started = await recover(admin, agent.userId, randomPhoneNumber());
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    await refused(supportCancel(agent, agent.userId, started.body.data.change_id));
    const otherAgent = await staffMember(service, company, 'support');
    await refused(supportCancel(otherAgent, agent.userId, started.body.data.change_id));
    expect((await supportCancel(secondAdmin, agent.userId, started.body.data.change_id)).status).toBe(200);
  });

  it('finding 3: a start counts as a lookup and is recorded whether it starts or is refused, 409 code 7 included', async () => {
    const own = testService({ ADMIN_LOOKUPS_PER_HOUR: '3' });
    own.clock.freeze(nextHourStart() + 60);
    const ownCompany = await newCompany(own);
    const desk = await staffMember(own, ownCompany, 'support');
    const customer = await signUp(own, ownCompany);
    const holders = [await signUp(own, ownCompany), await signUp(own, ownCompany), await signUp(own, ownCompany)];
    const probe = (phone: string) =>
      invoke(own.handlers.adminUsersPhoneRecover, {
        path: '/r',
        headers: { CompanyID: ownCompany.company_id, Authorization: desk.session },
        body: { user_id: customer.userId, dial_code: '+1', phone_number: phone, reason: 'probing' },
      });
    for (const holder of holders) expectFailure(await probe(String(holder.registration.phone_number)), 409, 7);
    // The hour's lookups are spent: a fourth number, held or not, and a search, are 429 code 12.
    expectFailure(await probe(randomPhoneNumber()), 429, 12);
    const search = await invoke(own.handlers.adminUsersSearch, {
      path: '/s',
      headers: { CompanyID: ownCompany.company_id, Authorization: desk.session },
      body: { user_id: customer.userId, reason: 'x' },
    });
    expectFailure(search, 429, 12);
    // Each refused start is in the record, with why and the number's last 4 digits; the one not counted is not.
    const records = (await queryStaffChain(own.app.table, ownCompany.company_id)).filter((record) => record.action === 'phone_recover');
    expect(records.map((record) => ({ user: record.user_id, details: record.details }))).toEqual(
      holders.map((holder) => ({
        user: customer.userId,
        details: { outcome: 'refused', refusal: 'ALREADY_REGISTERED', phone_last4: String(holder.registration.phone_number).slice(-4) },
      })),
    );
    expect(await getPendingPhoneChange(own.app.table, ownCompany.company_id, customer.userId, true)).toBeUndefined();
  });
});
