import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError, fieldError } from '../errors.js';
import type { RequestOrigin } from '../observability/audit.js';
import { accountBusy } from '../sessions/end-sessions.js';
import { adminCountChange, employeeRoleChange, type StaffRole } from '../store/staff-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserStatus } from '../users/user-status.js';
import { UserType } from '../users/user-types.js';
import type { EmployeeRoleCall } from './employee-role-input.js';
import type { EmployeeRoleResult } from './employee-role-result.js';
import { auditStaffAction, staffActionRecord } from './staff-actions.js';
import { StaffChain } from './staff-chain.js';
import { requireStaff } from './staff-gate.js';

// An employee's back-office role (API contract 3.14): support, admin or none. One transaction sets
// it on the employee's record (while it is still the role read), moves the company's count of
// admins (one fewer only while another remains: the last admin keeps the role, 409 code 21) and
// records the action. So two admins taking each other's role at once leave one admin, not none.

type Label = 'employee' | 'admins' | 'record';

/** Rounds of the change against another change of the same employee's role. */
const MAX_ROUNDS = 3;

export type RoleName = StaffRole | 'none';

const lastAdmin = () =>
  new AppError('LAST_ADMIN', { detail: 'the company’s last admin keeps the role: make another employee admin first' });
const notAnEmployee = () => fieldError('NOT_FOUND', 'user_id', 'is no active employee of this company');

/** Who changes the role and why: an admin by the route, or an operator by `npm run employee:role`. */
export interface RoleChange {
  companyId: string;
  actorId: string;
  userId: string;
  role: RoleName;
  reason: string;
  origin?: RequestOrigin | undefined;
}

/** Sets the role; answers the employee and their role. */
export async function setEmployeeRole(
  app: App,
  change: RoleChange,
  chain = new StaffChain(app, change.companyId),
): Promise<EmployeeRoleResult> {
  const wanted = change.role === 'none' ? undefined : change.role;
  for (let round = 1; ; round++) {
    const employee = (await getUser(app.table, change.companyId, change.userId, true)) as (UserRecord & { role?: StaffRole }) | undefined;
    if (employee?.user_type !== UserType.EMPLOYEE || employee.status_id !== UserStatus.ACTIVE) throw notAnEmployee();
    const seen = employee.role;
    const { record, writes } = await staffActionRecord(app, chain, {
      companyId: change.companyId,
      actorId: change.actorId,
      action: 'role',
      userId: change.userId,
      reason: change.reason,
    });
    const items: LabelledItem<Label>[] = [
      {
        label: 'employee',
        item: employeeRoleChange(app.table, change.companyId, change.userId, {
          seen,
          role: wanted,
          employeeType: UserType.EMPLOYEE,
          activeStatus: UserStatus.ACTIVE,
          nowSeconds: epochSeconds(app.clock),
        }),
      },
      ...writes,
    ];
    if (seen === 'admin' && wanted !== 'admin') items.push({ label: 'admins', item: adminCountChange(app.table, change.companyId, -1) });
    if (seen !== 'admin' && wanted === 'admin') items.push({ label: 'admins', item: adminCountChange(app.table, change.companyId, 1) });
    try {
      await writeTransaction(app.table, items);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = new Set(error.labels as Label[]);
      if (failed.has('admins') && !failed.has('employee')) {
        auditStaffAction(app, change.origin, record, 'last_admin');
        throw lastAdmin();
      }
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    auditStaffAction(app, change.origin, record, 'changed');
    return { message: 'Role set', user_id: change.userId, role: change.role };
  }
}

/** POST /wallet/v3/admin/employees/role: an admin of the company sets another employee's role (or their own). */
export async function employeeRole(app: App, call: EmployeeRoleCall): Promise<EmployeeRoleResult> {
  const staff = await requireStaff(app, call.principal, ['admin']);
  return setEmployeeRole(
    app,
    {
      companyId: call.principal.companyId,
      actorId: staff.userId,
      userId: call.body.user_id,
      role: call.body.role,
      reason: call.body.reason,
      origin: call.origin,
    },
    staff.chain,
  );
}
