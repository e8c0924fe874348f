import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { type EmployeeRecord, requireStaff } from '../staff/staff-gate.js';
import type { StaffRole } from '../store/staff-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import { requireApprover } from './approver-rules.js';
import { roleChangeItems } from './employee-role.js';
import type { EmployeesApproveCall } from './employees-approve-input.js';
import type { EmployeesApproveResult } from './employees-approve-result.js';
import { approvalOf, grantToApprove, noSuchGrant } from './grants.js';

// POST /wallet/v3/admin/employees/approve (API contract 3.14, round 6): another admin approves a
// role grant (employee-role.ts). One transaction marks the grant approved (once, while unexpired),
// sets the role (while it is still the one the grant was asked from, on an active employee), moves
// the seat and count of active admins, and records the action.

const changedMeanwhile = () =>
  fieldError(
    'STATE_CONFLICT',
    'grant_id',
    'is for an employee who is no longer active, or whose role changed since it was asked: ask again',
  );

export async function employeesApprove(app: App, call: EmployeesApproveCall): Promise<EmployeesApproveResult> {
  const staff = await requireStaff(app, call.principal, ['admin'], { fresh: true });
  const { grant, approved } = await grantToApprove(app, staff, call.body.grant_id, 'role');
  const role = grant.role as StaffRole;
  const answer = { message: 'Role granted', grant_id: grant.grant_id, user_id: grant.user_id!, role };
  if (approved) return answer;
  const grantee = (await getUser(app.table, grant.company_id, grant.user_id!, true)) as EmployeeRecord | undefined;
  await requireApprover(app, staff, { starterId: grant.requested_by, field: 'grant_id', grantee });
  if (grantee?.user_type !== UserType.EMPLOYEE || grantee.status_id !== UserStatus.ACTIVE || (grantee.role ?? 'none') !== grant.from_role) {
    throw changedMeanwhile();
  }
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId: grant.company_id,
    actorId: staff.userId,
    action: 'role_approve',
    userId: grantee.user_id,
    reason: call.body.reason,
    details: { grant_id: grant.grant_id, role, asked_by: grant.requested_by },
  });
  try {
    await writeTransaction<string>(app.table, [
      approvalOf(app, staff, grant),
      ...roleChangeItems(app, grant.company_id, grantee, role, { grantedBy: grant.requested_by, approvedBy: staff.userId }),
      ...writes,
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // Approved by another admin meanwhile, or void; else the employee changed.
    if (error.labels.includes('grant')) throw noSuchGrant();
    throw changedMeanwhile();
  }
  auditStaffAction(app, call.origin, record, 'approved');
  return answer;
}
