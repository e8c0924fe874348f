import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { fieldError } from '../errors.js';
import type { RequestOrigin } from '../observability/audit.js';
import { accountBusy } from '../sessions/end-sessions.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { StaffChain } from '../staff/staff-chain.js';
import { type EmployeeRecord, requireStaff, type Staff } from '../staff/staff-gate.js';
import { employeeRoleChange, type StaffRole } from '../store/staff-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { adminJoins, adminLeaves, lastActiveAdmin, type SeatLabel } from '../users/active-admins.js';
import { UserType } from '../users/user-types.js';
import type { EmployeeRoleCall } from './employee-role-input.js';
import type { EmployeeRoleResult } from './employee-role-result.js';
import { newGrant } from './grants.js';

// An employee's back-office role (API contract 3.14, amended in round 6): support, admin or none.
// Giving power (none to support, none or support to admin) takes two admins: the first one's
// employees/role stores a grant and answers pending, and another admin approves it
// (employees-approve.ts). Taking power away (to none, or admin to support) is at once: it protects,
// as ending sessions does, and waiting for a second admin would leave the power meanwhile. The
// operator's employee:create (cloud credentials) is the one path that sets a role alone. A role
// set writes the employee's record (while it is still the role read), moves the company's count of
// active admins and their seats (active-admins.ts: the last active admin stays one, 409 code 21)
// and records the action, in one transaction.

type Label = 'employee' | SeatLabel | 'record' | 'grant';

/** Rounds of the change against another change of the same employee's role. */
const MAX_ROUNDS = 3;

export type RoleName = StaffRole | 'none';

const POWER: Record<RoleName, number> = { none: 0, support: 1, admin: 2 };

/** Whether going from one role to another gives power: then it takes two admins. */
export function givesPower(from: RoleName, to: RoleName): boolean {
  return POWER[to] > POWER[from];
}

const notAnEmployee = () => fieldError('NOT_FOUND', 'user_id', 'is no active employee of this company');

/** The employee a role names, read strongly consistently: an active employee of the company, else 404 code 6. */
export async function activeEmployee(app: App, companyId: string, userId: string): Promise<EmployeeRecord> {
  const employee = (await getUser(app.table, companyId, userId, true)) as EmployeeRecord | undefined;
  if (employee?.user_type !== UserType.EMPLOYEE || employee.status_id !== UserStatus.ACTIVE) throw notAnEmployee();
  return employee;
}

/** Who changes the role and why: an admin by the route, an approval of a grant, or an operator by `npm run employee:create`. */
export interface RoleChange {
  companyId: string;
  actorId: string;
  userId: string;
  role: RoleName;
  reason: string;
  origin?: RequestOrigin | undefined;
}

/**
 * The writes of a role change of an employee as read: their record (while the role is still the
 * one read), the seat and count of active admins when it makes or unmakes one.
 */
export function roleChangeItems(
  app: App,
  companyId: string,
  employee: EmployeeRecord,
  to: RoleName,
  by: { grantedBy: string; approvedBy?: string | undefined },
): LabelledItem<Label>[] {
  const now = epochSeconds(app.clock);
  const from = employee.role;
  const wanted = to === 'none' ? undefined : to;
  const items: LabelledItem<Label>[] = [
    {
      label: 'employee',
      item: employeeRoleChange(app.table, companyId, employee.user_id, {
        seen: from,
        role: wanted,
        employeeType: UserType.EMPLOYEE,
        activeStatus: UserStatus.ACTIVE,
        nowSeconds: now,
        // A role lowered keeps who gave the power it came from (the approver rules read them).
        given: givesPower(from ?? 'none', to) ? by : undefined,
      }),
    },
  ];
  // The employee is active (the condition above): an admin role made or unmade is an active admin made or unmade.
  if (from === 'admin' && wanted !== 'admin') items.push(...adminLeaves(app.table, companyId, employee.user_id));
  if (from !== 'admin' && wanted === 'admin') items.push(...adminJoins(app.table, companyId, employee.user_id, now));
  return items;
}

/** Sets the role at once: the operator's employee:create, and the route for a role that gives no power. */
export async function setEmployeeRole(
  app: App,
  change: RoleChange,
  chain = new StaffChain(app, change.companyId),
): Promise<EmployeeRoleResult> {
  for (let round = 1; ; round++) {
    const employee = await activeEmployee(app, change.companyId, change.userId);
    const { record, writes } = await staffActionRecord(app, chain, {
      companyId: change.companyId,
      actorId: change.actorId,
      action: 'role',
      userId: change.userId,
      reason: change.reason,
      details: { role: change.role, from_role: employee.role ?? 'none' },
    });
    try {
      await writeTransaction<Label>(app.table, [
        ...roleChangeItems(app, change.companyId, employee, change.role, { grantedBy: change.actorId }),
        ...writes,
      ]);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = new Set(error.labels as Label[]);
      if (failed.has('admins') && !failed.has('employee') && !failed.has('seat')) {
        auditStaffAction(app, change.origin, record, 'last_admin');
        throw lastActiveAdmin();
      }
      // The role or the seat changed since read: read again.
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    auditStaffAction(app, change.origin, record, 'changed');
    return { message: 'Role set', user_id: change.userId, role: change.role, pending: 0 };
  }
}

/**
 * Asks for a role that gives power: a grant another admin approves within APPROVAL_WITHIN_SECONDS
 * (employees/approve), stored with its record in one transaction. Nothing changes until then.
 */
async function askForRole(app: App, change: RoleChange, employee: EmployeeRecord, staff: Staff): Promise<EmployeeRoleResult> {
  const fromRole = employee.role ?? 'none';
  const { grant, write } = newGrant(app, staff, {
    kind: 'role',
    user_id: change.userId,
    role: change.role as StaffRole,
    from_role: fromRole,
  });
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId: change.companyId,
    actorId: change.actorId,
    action: 'role_grant',
    userId: change.userId,
    reason: change.reason,
    details: { grant_id: grant.grant_id, role: change.role, from_role: fromRole },
  });
  await writeTransaction<Label>(app.table, [write, ...writes]);
  auditStaffAction(app, change.origin, record, 'asked');
  return {
    message: 'Role asked: another admin approves it (employees/approve) before approve_by, or it is void',
    user_id: change.userId,
    role: change.role,
    pending: 1,
    grant_id: grant.grant_id,
    approve_by: grant.expires_at,
  };
}

/**
 * POST /wallet/v3/admin/employees/role: an admin of the company sets another employee's role (or
 * their own): at once when it gives no power, else as a grant another admin approves.
 */
export async function employeeRole(app: App, call: EmployeeRoleCall): Promise<EmployeeRoleResult> {
  const staff = await requireStaff(app, call.principal, ['admin'], { fresh: true });
  const change: RoleChange = {
    companyId: call.principal.companyId,
    actorId: staff.userId,
    userId: call.body.user_id,
    role: call.body.role,
    reason: call.body.reason,
    origin: call.origin,
  };
  const employee = await activeEmployee(app, change.companyId, change.userId);
  if (givesPower(employee.role ?? 'none', change.role)) return askForRole(app, change, employee, staff);
  return setEmployeeRole(app, change, staff.chain);
}
