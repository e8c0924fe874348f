// Dual control that one person cannot hold alone (API contract 3.14, amended in round 6, and its
// second reading): an employee is registered only by an admin (strong session, reason, recorded);
// approvals of recoveries and grants are refused when the two halves are one person (the starter,
// an employee the approver registered or asked the role of, or who made the approver) or too new
// (ADMIN_APPROVER_MIN_HOURS, 72 here as deployed); unapproved, each is void after 72 hours; and
// approvals/list shows what waits. Each finding of the insider review is a test here or beside it.
import { beforeAll, describe, expect, it } from 'vitest';
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import type { Company } from '../../lib/companies/companies.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { PINS } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import {
  type Account,
  expectFailure,
  invoke,
  logIn,
  newCompany,
  randomPhoneNumber,
  sampleRegistration,
  signUp,
  testService,
} from '../helpers.js';
import { post } from './actions.js';
import { type StaffMember, smsSession, staffMember, strongSession } from './staff.js';

// The deployed floor: an admin or a starter made less than 72 hours ago approves, or is approved, nothing.
const service = testService({ ADMIN_APPROVER_MIN_HOURS: '72' });
const DAYS_3 = 72 * 3600;

/** Moves every clock of this file's service past the approver floor; staff sign in again after it. */
async function threeDaysLater(...staff: Member[]): Promise<void> {
  service.clock.advance(DAYS_3 + 60);
  for (const member of staff) member.session = await strongSession(service, member.company, member);
}

type Member = StaffMember & { company: Company };

async function member(company: Company, role: 'support' | 'admin' | 'none'): Promise<Member> {
  return { ...(await staffMember(service, company, role)), company };
}

/** An employee registered through the API by `by` (with a device bound at registration, so a PIN login is strong). */
async function registeredBy(by: Member, extra: Record<string, unknown> = {}) {
  const keys = newDeviceKeyPair();
  const answer = await invoke(service.handlers.userRegister, {
    path: '/wallet/v3/auth/user_register',
    headers: { CompanyID: by.company.company_id, Authorization: by.session },
    body: sampleRegistration({
      user_type: 1,
      parent_user_id: undefined,
      referral_code: undefined,
      ...PINS,
      device_public_key: keys.publicKey,
      reason: 'ticket 7001: new hire',
      ...extra,
    }),
  });
  return { answer, keys };
}

/** An employee `by` registered through the API, with no role, signed in strongly on the device bound then. */
async function employeeBy(by: Member): Promise<Member> {
  const { answer, keys } = await registeredBy(by);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const employee: Member = {
    userId: answer.body.data.user_id,
    referralCode: answer.body.data.referral_code,
    authorization: `Token ${answer.body.data.token.token}`,
    refreshToken: answer.body.data.refresh_token,
    registration: {},
    device: { ...keys, deviceKey: answer.body.data.device_key as string },
    session: '',
    company: by.company,
  };
  employee.session = await strongSession(service, by.company, employee);
  return employee;
}

const grantRole = (by: Member, whom: { userId: string }, role: string) =>
  post(service, by.company, 'adminEmployeeRole', by.session, { user_id: whom.userId, role, reason: 'ticket 7002' });
const approveGrant = (by: Member, grantId: string) =>
  post(service, by.company, 'adminEmployeesApprove', by.session, { grant_id: grantId, reason: 'ticket 7003' });
async function recover(by: Member, customer: Account) {
  const answer = await post(service, by.company, 'adminUsersPhoneRecover', by.session, {
    user_id: customer.userId,
    dial_code: '+1',
    phone_number: randomPhoneNumber(),
    reason: 'ticket 7004: lost phone',
  });
  recovered.set(answer, customer);
  return answer;
}
/** The customer a recovery's answer is for: recover() names them in the request; tests keep it here. */
const recovered = new WeakMap<object, Account>();
const accountOf = async (answer: object) => recovered.get(answer)!;
const setRoleByOperator = (company: Company, whom: Member, role: 'support' | 'admin') =>
  setEmployeeRole(service.app, { companyId: company.company_id, actorId: 'operator', userId: whom.userId, role, reason: 'setup' });
const approveRecovery = (by: Member, customer: Account, changeId: string) =>
  post(service, by.company, 'adminUsersPhoneApprove', by.session, { user_id: customer.userId, change_id: changeId, reason: 'ticket 7005' });

describe('employee registration', () => {
  let company: Company;
  let admin: Member;
  beforeAll(async () => {
    company = await newCompany(service);
    admin = await member(company, 'admin');
  });

  it('is an admin’s on a strong session: support, no role, a customer 403 code 5; an SMS session 403 needs strong', async () => {
    const customer = await signUp(service, company);
    for (const session of [
      (await member(company, 'support')).session,
      (await member(company, 'none')).session,
      await logIn(service, company, customer),
    ]) {
      expectFailure((await registeredBy({ ...admin, session })).answer, 403, 5);
    }
    const { answer: sms } = await registeredBy({ ...admin, session: await smsSession(service, company, admin) });
    expectFailure(sms, 403, 5);
    expect(sms.body.data.needs).toBe('strong');
  });

  it('wants a reason (400 code 1), and is recorded as employee_register by the admin', async () => {
    expectFailure((await registeredBy(admin, { reason: undefined })).answer, 400, 1);
    const { answer } = await registeredBy(admin, { reason: 'ticket 7100: night shift' });
    expect(answer.status).toBe(200);
    const [record] = (await queryStaffChain(service.app.table, company.company_id)).filter(
      (entry) => entry.user_id === answer.body.data.user_id,
    );
    expect(record).toMatchObject({ action: 'employee_register', actor_id: admin.userId, reason: 'ticket 7100: night shift' });
  });

  it('still lets any employee register a customer, unrecorded as a staff action', async () => {
    const agent = await member(company, 'support');
    const answer = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: company.company_id, Authorization: agent.session },
      body: sampleRegistration(),
    });
    expect(answer.status).toBe(200);
  });
});

describe('finding 1: one admin approves their own recovery', () => {
  it('is refused: the employee they register is no admin without a second admin, and never approves what they start', async () => {
    const company = await newCompany(service);
    const [a, b] = [await member(company, 'admin'), await member(company, 'admin')];
    const customer = await signUp(service, company);
    await threeDaysLater(a, b);
    // A registers E on a SIM A holds, and asks for E to be admin: pending, not made.
    const e = await employeeBy(a);
    const asked = await grantRole(a, e, 'admin');
    expect(asked.body.data).toMatchObject({ pending: 1 });
    expectFailure(await approveGrant(e, asked.body.data.grant_id), 403, 5);
    // B approves E's grant (a second person, who trusted A's ask).
    expect((await approveGrant(b, asked.body.data.grant_id)).status).toBe(200);
    // A starts a recovery of the customer to a number A holds; E approves: refused (admin for minutes).
    const started = await recover(a, customer);
    expect(started.status).toBe(200);
    e.session = await strongSession(service, company, e);
    expectFailure(await approveRecovery(e, customer, started.body.data.change_id), 403, 5);
    // Days later, still refused: A registered E and asked for E's role. Another admin approves.
    await threeDaysLater(a, b, e);
    const again = await recover(a, customer);
    expectFailure(await approveRecovery(e, customer, again.body.data.change_id), 403, 5);
    expect((await approveRecovery(b, customer, again.body.data.change_id)).status).toBe(200);
  });
});

describe('approver rules', () => {
  it('refuses an approver admin for under 72 hours, and a starter registered or given their role under 72 hours ago', async () => {
    const company = await newCompany(service);
    const [old, starter, roleless] = [await member(company, 'admin'), await member(company, 'support'), await member(company, 'none')];
    const customer = await signUp(service, company);
    await threeDaysLater(old, starter, roleless);
    // The approver's role is new.
    const newcomer = await member(company, 'admin');
    const started = await recover(starter, customer);
    expectFailure(await approveRecovery(newcomer, customer, started.body.data.change_id), 403, 5);
    // The starter's record is new.
    const newStarter = await member(company, 'support');
    const byNew = await recover(newStarter, await signUp(service, company));
    expectFailure(await approveRecovery(old, await accountOf(byNew), byNew.body.data.change_id), 403, 5);
    // The starter's record is old, their role new.
    await setRoleByOperator(company, roleless, 'support');
    roleless.session = await strongSession(service, company, roleless);
    const byNewRole = await recover(roleless, await signUp(service, company));
    expectFailure(await approveRecovery(old, await accountOf(byNewRole), byNewRole.body.data.change_id), 403, 5);
    // An old admin, an old starter with an old role: approved.
    expect((await approveRecovery(old, customer, started.body.data.change_id)).status).toBe(200);
  });

  it('refuses the admin who registered the starter and asked for their role; not the admin who approved that role', async () => {
    const company = await newCompany(service);
    const [a, b] = [await member(company, 'admin'), await member(company, 'admin')];
    await threeDaysLater(a, b);
    // A registers S and asks for S's support role; B approves it.
    const s = await employeeBy(a);
    const asked = await grantRole(a, s, 'support');
    expect((await approveGrant(b, asked.body.data.grant_id)).status).toBe(200);
    await threeDaysLater(a, b, s);
    const customer = await signUp(service, company);
    const started = await recover(s, customer);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expectFailure(await approveRecovery(a, customer, started.body.data.change_id), 403, 5);
    // B approved S's role but neither registered S nor asked for the role: B may approve.
    expect((await approveRecovery(b, customer, started.body.data.change_id)).status).toBe(200);
  });

  it('refuses the approver who registered the employee a grant is for', async () => {
    const company = await newCompany(service);
    const [a, b] = [await member(company, 'admin'), await member(company, 'admin')];
    await threeDaysLater(a, b);
    const e = await employeeBy(a);
    const asked = await grantRole(b, e, 'support');
    expectFailure(await approveGrant(a, asked.body.data.grant_id), 403, 5);
  });

  it('voids a recovery and a grant not approved within 72 hours (404 code 6)', async () => {
    const company = await newCompany(service);
    const [a, b] = [await member(company, 'admin'), await member(company, 'admin')];
    await threeDaysLater(a, b);
    const customer = await signUp(service, company);
    const started = await recover(a, customer);
    const asked = await grantRole(a, await member(company, 'none'), 'support');
    await threeDaysLater(a, b);
    expectFailure(await approveRecovery(b, customer, started.body.data.change_id), 404, 6);
    expectFailure(await approveGrant(b, asked.body.data.grant_id), 404, 6);
  });
});

describe('approvals/list', () => {
  it('shows an admin the grants and recoveries that await another admin, and nothing approved, cancelled or void', async () => {
    const company = await newCompany(service);
    const [a, b] = [await member(company, 'admin'), await member(company, 'admin')];
    const agent = await member(company, 'support');
    await threeDaysLater(a, b, agent);
    const list = async (by: Member = b) => {
      const answer = await post(service, company, 'adminApprovalsList', by.session, { reason: 'ticket 7200: review' });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.data as { grants: any[]; recoveries: any[] };
    };
    expect(await list()).toEqual({ grants: [], recoveries: [] });
    const newcomer = await member(company, 'none');
    const role = await grantRole(a, newcomer, 'support');
    const settings = await post(service, company, 'adminCompanyUpdate', a.session, { sms_countries: ['IN', 'US'], reason: 'x' });
    const [kept, cancelled] = [await signUp(service, company), await signUp(service, company)];
    const recovery = await recover(agent, kept);
    const gone = await recover(agent, cancelled);
    expect(
      (
        await post(service, company, 'adminUsersPhoneCancel', agent.session, {
          user_id: cancelled.userId,
          change_id: gone.body.data.change_id,
          reason: 'caller hung up',
        })
      ).status,
    ).toBe(200);
    const shown = await list();
    expect(shown.grants).toHaveLength(2);
    expect(shown.grants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          grant_id: role.body.data.grant_id,
          kind: 'role',
          requested_by: a.userId,
          user_id: newcomer.userId,
          role: 'support',
          from_role: 'none',
        }),
        expect.objectContaining({
          grant_id: settings.body.data.grant_id,
          kind: 'company',
          requested_by: a.userId,
          settings: ['sms_countries'],
        }),
      ]),
    );
    expect(shown.recoveries).toEqual([
      expect.objectContaining({ change_id: recovery.body.data.change_id, user_id: kept.userId, started_by: agent.userId }),
    ]);
    // Approved: off the list.
    expect((await approveGrant(b, role.body.data.grant_id)).status).toBe(200);
    expect((await approveRecovery(b, kept, recovery.body.data.change_id)).status).toBe(200);
    expect((await list()).grants.map((grant) => grant.kind)).toEqual(['company']);
    expect((await list()).recoveries).toEqual([]);
    // Support sees no list; an SMS-strength session of an admin neither.
    expectFailure(await post(service, company, 'adminApprovalsList', agent.session, { reason: 'x' }), 403, 5);
    const sms = await post(service, company, 'adminApprovalsList', await smsSession(service, company, a), { reason: 'x' });
    expectFailure(sms, 403, 5);
    expect(sms.body.data.needs).toBe('strong');
    // Void after 72 hours.
    await threeDaysLater(a, b);
    expect(await list()).toEqual({ grants: [], recoveries: [] });
  });
});
