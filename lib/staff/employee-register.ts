import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { fieldError } from '../errors.js';
import type { RequestOrigin } from '../observability/audit.js';
import type { ChainedStaffRecord } from '../store/staff-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { auditStaffAction, staffActionRecord } from './staff-actions.js';
import { StaffChain } from './staff-chain.js';
import { requireStaff } from './staff-gate.js';

// Registering an employee (API contract 3.14, amended in round 6): through the API only an admin
// of the company, on a strong session, with a reason; the operator's employee:create (cloud
// credentials) too. Either is a staff action, employee_register, recorded in the registration's own
// transaction: an employee nobody can account for is how one person came to hold both halves of
// dual control (issue: an admin registered a second employee on another SIM, unrecorded).

/** The operator's actor id in the staff record. */
export const OPERATOR = 'operator';

/** Who registers an employee, checked, and the record their registration writes. */
export interface EmployeeRegistrar {
  actorId: string;
  /** The record of registering `userId`, for the registration's transaction (renewed in the chain if overtaken). */
  record(userId: string): Promise<{ record: ChainedStaffRecord; writes: LabelledItem<'record'>[] }>;
  audit(record: ChainedStaffRecord): void;
}

/**
 * The registrar of an employee: the operator (npm run employee:create), or an admin of the company
 * on a strong session giving a reason (any other caller: 403 code 5; no reason: 400 code 1).
 */
export async function employeeRegistrar(
  app: App,
  principal: Principal,
  reason: string | undefined,
  origin: RequestOrigin | undefined,
): Promise<EmployeeRegistrar> {
  const operator = principal.userId === OPERATOR;
  const chain = operator ? new StaffChain(app, principal.companyId) : (await requireStaff(app, principal, ['admin'])).chain;
  if (!operator && !reason) throw fieldError('BAD_REQUEST', 'reason', 'is required to register an employee: why, such as a ticket number');
  return {
    actorId: principal.userId,
    record: (userId) =>
      staffActionRecord(app, chain, {
        companyId: principal.companyId,
        actorId: principal.userId,
        action: 'employee_register',
        userId,
        reason: reason ?? 'npm run employee:create',
      }),
    audit: (record) => auditStaffAction(app, origin, record, 'registered'),
  };
}
