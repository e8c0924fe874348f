// Back-office roles (API contract 3.14): an admin sets an employee's role; the back office takes
// only an employee with a role, on a fresh OTP or PIN session, giving a reason; the company's last
// admin keeps the role, also when two admins take each other's at once; every change is recorded.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import type { Company } from '../../lib/companies/companies.js';
import { adminCountKey, STAFF_ACTION_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { expectFailure, invoke, logIn, newCompany, newEmployee, signUp, testService } from '../helpers.js';
import { staffMember } from './staff.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const staff = (role: 'support' | 'admin' | 'none') => staffMember(service, company, role);

const setRoleIn = (via: typeof service, authorization: string, body: Record<string, unknown>) =>
  invoke(via.handlers.adminEmployeeRole, {
    path: '/wallet/v3/admin/employees/role',
    headers: { CompanyID: company.company_id, Authorization: authorization },
    body,
  });
const setRole = (authorization: string, body: Record<string, unknown>) => setRoleIn(service, authorization, body);

async function roleOf(userId: string): Promise<string | undefined> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: userKey(company.company_id, userId), ConsistentRead: true }),
  );
  return Item?.role;
}

async function admins(): Promise<number> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({ TableName: service.app.table.name, Key: adminCountKey(company.company_id), ConsistentRead: true }),
  );
  return Item?.admins ?? 0;
}

describe('employees/role', () => {
  it('lets an admin give an employee the support role, and records who did it, to whom and why', async () => {
    const admin = await staff('admin');
    const agent = await newEmployee(service, company);
    const answer = await setRole(admin.session, { user_id: agent.userId, role: 'support', reason: 'ticket 4711' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ message: 'Role set', user_id: agent.userId, role: 'support' });
    expect(await roleOf(agent.userId)).toBe('support');

    const onUser = await queryPartitionPrefix(service.app.table, userKey(company.company_id, agent.userId).pk, STAFF_ACTION_PREFIX);
    expect(onUser).toEqual([
      expect.objectContaining({ actor_id: admin.userId, action: 'role', user_id: agent.userId, reason: 'ticket 4711' }),
    ]);
    const log = await queryStaffChain(service.app.table, company.company_id);
    expect(log.filter((record) => record.action_id === onUser[0]!.action_id)).toHaveLength(1);
  });

  it('refuses a customer, an employee with no role and a support agent (403 code 5), and changes nothing', async () => {
    const agent = await newEmployee(service, company);
    const customer = await signUp(service, company);
    const customerSession = await logIn(service, company, customer);
    const noRole = await staff('none');
    const support = await staff('support');
    for (const session of [customerSession, noRole.session, support.session]) {
      expectFailure(await setRole(session, { user_id: agent.userId, role: 'admin', reason: 'promote' }), 403, 5);
    }
    expect(await roleOf(agent.userId)).toBeUndefined();
  });

  it('wants a session begun by OTP or PIN login under ADMIN_SESSION_HOURS ago (400 code 14), and a reason (400 code 1)', async () => {
    // Access tokens that outlive the back office's limit (DynamoDB Local may pass the deployed bounds): the session's age refuses, not the token's.
    const service = testService({ ADMIN_SESSION_HOURS: '1', ACCESS_TOKEN_TTL_SECONDS: '7200' });
    const setRole = (authorization: string, body: Record<string, unknown>) => setRoleIn(service, authorization, body);
    const employee = await newEmployee(service, company);
    await setEmployeeRole(service.app, {
      companyId: company.company_id,
      actorId: 'operator',
      userId: employee.userId,
      role: 'admin',
      reason: 'setup',
    });
    // Its registration's session: not a login.
    expectFailure(await setRole(employee.authorization, { user_id: employee.userId, role: 'admin', reason: 'x' }), 400, 14);
    const session = await logIn(service, company, employee);
    expectFailure(await setRole(session, { user_id: employee.userId, role: 'admin' }), 400, 1);
    expectFailure(await setRole(session, { user_id: employee.userId, role: 'admin', reason: '   ' }), 400, 1);
    expectFailure(await setRole(session, { user_id: employee.userId, role: 'admin', reason: 'x'.repeat(201) }), 400, 1);
    expect((await setRole(session, { user_id: employee.userId, role: 'admin', reason: 'x' })).status).toBe(200);
    // The same session, an hour (ADMIN_SESSION_HOURS here) after its login: over for the back office.
    service.clock.advance(service.app.config.admin.sessionSeconds);
    try {
      expectFailure(await setRole(session, { user_id: employee.userId, role: 'admin', reason: 'x' }), 400, 14);
    } finally {
      service.clock.reset();
    }
  });

  it('answers 404 code 6 for a user who is no employee of the company', async () => {
    const admin = await staff('admin');
    const customer = await signUp(service, company);
    expectFailure(await setRole(admin.session, { user_id: customer.userId, role: 'support', reason: 'x' }), 404, 6);
  });

  it('keeps the last admin: 409 code 21 for the only one, and of two admins taking each other’s role at once, one stays', async () => {
    const own = await newCompany(service);
    const first = await newEmployee(service, own);
    await setEmployeeRole(service.app, {
      companyId: own.company_id,
      actorId: 'operator',
      userId: first.userId,
      role: 'admin',
      reason: 'setup',
    });
    const firstSession = await logIn(service, own, first);
    const roleIn = (authorization: string, body: Record<string, unknown>) =>
      invoke(service.handlers.adminEmployeeRole, {
        path: '/wallet/v3/admin/employees/role',
        headers: { CompanyID: own.company_id, Authorization: authorization },
        body,
      });
    expectFailure(await roleIn(firstSession, { user_id: first.userId, role: 'none', reason: 'leaving' }), 409, 21);

    const second = await newEmployee(service, own);
    expect((await roleIn(firstSession, { user_id: second.userId, role: 'admin', reason: 'deputy' })).status).toBe(200);
    const secondSession = await logIn(service, own, second);
    const answers = await Promise.all([
      roleIn(firstSession, { user_id: second.userId, role: 'none', reason: 'coup' }),
      roleIn(secondSession, { user_id: first.userId, role: 'none', reason: 'coup' }),
    ]);
    const statuses = answers.map((answer) => answer.status).sort();
    // One wins; the other is refused as the last admin's, or (its own role gone first) as no admin's.
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: adminCountKey(own.company_id), ConsistentRead: true }),
    );
    expect(Item?.admins).toBe(1);
    const roles = await Promise.all(
      [first, second].map(async ({ userId }) => {
        const { Item: user } = await service.app.table.client.send(
          new GetCommand({ TableName: service.app.table.name, Key: userKey(own.company_id, userId), ConsistentRead: true }),
        );
        return user?.role;
      }),
    );
    expect(roles.filter((role) => role === 'admin')).toHaveLength(1);
  });

  it('counts the admins it makes and unmakes', async () => {
    const before = await admins();
    const admin = await staff('admin');
    expect(await admins()).toBe(before + 1);
    const other = await newEmployee(service, company);
    await setRole(admin.session, { user_id: other.userId, role: 'admin', reason: 'x' });
    expect(await admins()).toBe(before + 2);
    await setRole(admin.session, { user_id: other.userId, role: 'support', reason: 'x' });
    expect(await admins()).toBe(before + 1);
  });
});
