// Back-office roles (API contract 3.14, amended in round 6): a role that gives power (support, or
// admin) takes two admins: employees/role asks (pending 1, grant_id) and another admin approves it
// with employees/approve; a role taken away is taken at once. The back office takes only an
// employee with a role, on a strong session (fresh for what only an admin may do) begun by a login
// under ADMIN_SESSION_HOURS ago, giving a reason. Every step is recorded.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { adminCountKey, grantKey, userKey } from '../../lib/store/keys.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { expectFailure, logIn, newCompany, signUp, testService } from '../helpers.js';
import { post } from './actions.js';
import { employeeWithDevice, smsSession, staffMember, strongSession } from './staff.js';

const service = testService();
const table = service.app.table;
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const staff = (role: 'support' | 'admin' | 'none', of = company) => staffMember(service, of, role);
const setRole = (authorization: string, body: Record<string, unknown>, of = company) =>
  post(service, of, 'adminEmployeeRole', authorization, { reason: 'ticket 4711', ...body });
const approve = (authorization: string, grantId: string, of = company) =>
  post(service, of, 'adminEmployeesApprove', authorization, { grant_id: grantId, reason: 'ticket 4712: checked with HR' });

async function stored(key: { pk: string; sk: string }): Promise<Record<string, any> | undefined> {
  return (await table.client.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }))).Item;
}
const roleOf = async (userId: string, of = company) => (await stored(userKey(of.company_id, userId)))?.role;
const activeAdmins = async (of = company) => (await stored(adminCountKey(of.company_id)))?.admins ?? 0;

describe('employees/role and employees/approve', () => {
  it('asks for a role that gives power (pending 1, grant_id): nothing changes until another admin approves it', async () => {
    const [asker, approver] = [await staff('admin'), await staff('admin')];
    const agent = await employeeWithDevice(service, company);
    const sent = Math.floor(service.app.clock.now() / 1000);
    const asked = await setRole(asker.session, { user_id: agent.userId, role: 'support' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.data).toEqual({
      message: expect.stringContaining('another admin approves'),
      user_id: agent.userId,
      role: 'support',
      pending: 1,
      grant_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      approve_by: expect.any(Number),
    });
    // 72 h from the second the request was answered in: between the seconds it was sent and answered.
    expect(asked.body.data.approve_by - 72 * 3600).toBeGreaterThanOrEqual(sent);
    expect(asked.body.data.approve_by - 72 * 3600).toBeLessThanOrEqual(Math.floor(service.app.clock.now() / 1000));
    expect(await roleOf(agent.userId)).toBeUndefined();

    const approved = await approve(approver.session, asked.body.data.grant_id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data).toEqual({
      message: 'Role granted',
      grant_id: asked.body.data.grant_id,
      user_id: agent.userId,
      role: 'support',
    });
    const employee = await stored(userKey(company.company_id, agent.userId));
    expect(employee).toMatchObject({ role: 'support', role_granted_by: asker.userId, role_approved_by: approver.userId });
    // Recorded: the ask and the approval, each by its admin, with the grant.
    const records = (await queryStaffChain(table, company.company_id)).filter((record) => record.user_id === agent.userId);
    expect(records.map(({ action, actor_id, details }) => ({ action, actor_id, grant: details?.grant_id }))).toEqual([
      { action: 'employee_register', actor_id: 'operator', grant: undefined },
      { action: 'role_grant', actor_id: asker.userId, grant: asked.body.data.grant_id },
      { action: 'role_approve', actor_id: approver.userId, grant: asked.body.data.grant_id },
    ]);
    // Once only: approved already, by anyone (the approver's own retry answers as then).
    expectFailure(await approve(asker.session, asked.body.data.grant_id), 404, 6);
    expect((await approve(approver.session, asked.body.data.grant_id)).status).toBe(200);
  });

  it('makes an admin of two admins’ will only: the asker cannot approve, nor can support (403 code 5)', async () => {
    const [asker, approver, agent] = [await staff('admin'), await staff('admin'), await staff('support')];
    const before = await activeAdmins();
    const { body } = await setRole(asker.session, { user_id: agent.userId, role: 'admin' });
    expect(body.data.pending).toBe(1);
    expectFailure(await approve(asker.session, body.data.grant_id), 403, 5);
    expectFailure(await approve(agent.session, body.data.grant_id), 403, 5);
    expect(await roleOf(agent.userId)).toBe('support');
    expect((await approve(approver.session, body.data.grant_id)).status).toBe(200);
    expect(await roleOf(agent.userId)).toBe('admin');
    expect(await activeAdmins()).toBe(before + 1);
  });

  it('answers 404 code 6 for a grant unknown, of another company, approved already or void after 72 hours', async () => {
    const [asker, approver] = [await staff('admin'), await staff('admin')];
    const other = await newCompany(service);
    const otherAdmin = await staff('admin', other);
    expectFailure(await approve(approver.session, 'ab'.repeat(16)), 404, 6);
    const agent = await employeeWithDevice(service, company);
    const { body } = await setRole(asker.session, { user_id: agent.userId, role: 'support' });
    expectFailure(await approve(otherAdmin.session, body.data.grant_id, other), 404, 6);
    // 72 hours on, unapproved: void (a new strong login to ask again).
    service.clock.advance(72 * 3600);
    try {
      const later = await staffMember(service, company, 'admin');
      expectFailure(await approve(later.session, body.data.grant_id), 404, 6);
    } finally {
      service.clock.reset();
    }
    expect(await roleOf(agent.userId)).toBeUndefined();
    expect((await stored(grantKey(company.company_id, body.data.grant_id)))?.status).toBe('pending');
  });

  it('answers 409 code 23 for a grant whose employee changed since it was asked, and sets nothing', async () => {
    const [asker, approver] = [await staff('admin'), await staff('admin')];
    const agent = await employeeWithDevice(service, company);
    const first = await setRole(asker.session, { user_id: agent.userId, role: 'support' });
    const second = await setRole(asker.session, { user_id: agent.userId, role: 'admin' });
    expect((await approve(approver.session, first.body.data.grant_id)).status).toBe(200);
    // Asked from no role: the employee is support now.
    expectFailure(await approve(approver.session, second.body.data.grant_id), 409, 23);
    expect(await roleOf(agent.userId)).toBe('support');
  });

  it('takes power away at once (to none, admin to support), recorded as role', async () => {
    const [admin, other, agent] = [await staff('admin'), await staff('admin'), await staff('support')];
    const before = await activeAdmins();
    const demoted = await setRole(admin.session, { user_id: other.userId, role: 'support' });
    expect(demoted.body.data).toEqual({ message: 'Role set', user_id: other.userId, role: 'support', pending: 0 });
    expect(await roleOf(other.userId)).toBe('support');
    expect(await activeAdmins()).toBe(before - 1);
    expect((await setRole(admin.session, { user_id: agent.userId, role: 'none' })).body.data.pending).toBe(0);
    expect(await roleOf(agent.userId)).toBeUndefined();
    // Their session is no way into the back office at the next call.
    expectFailure(await setRole(other.session, { user_id: agent.userId, role: 'none' }), 403, 5);
  });

  it('refuses a customer, an employee with no role and support (403 code 5), and changes nothing', async () => {
    const agent = await employeeWithDevice(service, company);
    const customer = await signUp(service, company);
    const customerSession = await logIn(service, company, customer);
    for (const session of [customerSession, (await staff('none')).session, (await staff('support')).session]) {
      expectFailure(await setRole(session, { user_id: agent.userId, role: 'admin' }), 403, 5);
    }
    expect(await roleOf(agent.userId)).toBeUndefined();
  });

  it('wants a strong session (403 code 5 needs strong) proven under STEP_UP_MAX_AGE_SECONDS ago (needs strong_fresh)', async () => {
    const admin = await staff('admin');
    const agent = await employeeWithDevice(service, company);
    const sms = await smsSession(service, company, admin);
    const refused = await setRole(sms, { user_id: agent.userId, role: 'support' });
    expectFailure(refused, 403, 5);
    expect(refused.body.data.needs).toBe('strong');
    const strong = await strongSession(service, company, admin);
    service.clock.advance(service.app.config.stepUpMaxAgeSeconds);
    try {
      const stale = await setRole(strong, { user_id: agent.userId, role: 'support' });
      expectFailure(stale, 403, 5);
      expect(stale.body.data.needs).toBe('strong_fresh');
      // Not fresh, still strong: enough for what support may do too.
      const search = await post(service, company, 'adminUsersSearch', strong, { user_id: agent.userId, reason: 'x' });
      expect(search.status).toBe(200);
    } finally {
      service.clock.reset();
    }
  });

  it('wants a session begun by a login under ADMIN_SESSION_HOURS ago (400 code 14), and a reason (400 code 1)', async () => {
    // Access tokens that outlive the back office's limit (DynamoDB Local may pass the deployed bounds): the session's age refuses, not the token's.
    const own = testService({ ADMIN_SESSION_HOURS: '1', ACCESS_TOKEN_TTL_SECONDS: '7200', STEP_UP_MAX_AGE_SECONDS: '7200' });
    const employee = await staffMember(own, company, 'admin');
    const roleIn = (authorization: string, body: Record<string, unknown>) => post(own, company, 'adminEmployeeRole', authorization, body);
    // Its registration's session: not a login.
    expectFailure(await roleIn(employee.authorization, { user_id: employee.userId, role: 'admin', reason: 'x' }), 400, 14);
    expectFailure(await roleIn(employee.session, { user_id: employee.userId, role: 'admin' }), 400, 1);
    expectFailure(await roleIn(employee.session, { user_id: employee.userId, role: 'admin', reason: '   ' }), 400, 1);
    expectFailure(await roleIn(employee.session, { user_id: employee.userId, role: 'admin', reason: 'x'.repeat(201) }), 400, 1);
    expect((await roleIn(employee.session, { user_id: employee.userId, role: 'admin', reason: 'x' })).status).toBe(200);
    own.clock.advance(own.app.config.admin.sessionSeconds);
    try {
      expectFailure(await roleIn(employee.session, { user_id: employee.userId, role: 'admin', reason: 'x' }), 400, 14);
    } finally {
      own.clock.reset();
    }
  });

  it('answers 404 code 6 for a user who is no employee of the company', async () => {
    const admin = await staff('admin');
    const customer = await signUp(service, company);
    expectFailure(await setRole(admin.session, { user_id: customer.userId, role: 'support' }), 404, 6);
  });
});
