import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { fieldError } from '../errors.js';
import type { RequestOrigin } from '../observability/audit.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { StaffChain } from '../staff/staff-chain.js';
import type { ChainedStaffRecord } from '../store/staff-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { UserType } from '../users/user-types.js';

// An employee's own passkey is a key to the back office (contract 3.16: staff add one with a
// reason). So an employee who adds or removes one gives a reason, and the change is recorded in the
// company's staff chain (self_passkey_add, self_passkey_remove) in the transaction that makes it:
// another admin reading the record sees every key that was added to a staff account, by whom and why,
// and a token stolen from an employee cannot leave a key of its own behind unseen. A customer's
// passkeys are theirs alone and record nothing here.

export interface EmployeePasskeyRecord {
  record: ChainedStaffRecord;
  writes: LabelledItem<'record'>[];
}

/** The staff record of an employee's change to their own passkeys, for its transaction; undefined for a customer. */
export async function employeePasskeyRecord(
  app: App,
  principal: Principal,
  change: { action: 'self_passkey_add' | 'self_passkey_remove'; passkeyId: string; reason: string | undefined },
): Promise<EmployeePasskeyRecord | undefined> {
  if (principal.userType !== UserType.EMPLOYEE) return undefined;
  if (!change.reason)
    throw fieldError('BAD_REQUEST', 'reason', 'is required of an employee: why you change your passkeys, such as a ticket number');
  return staffActionRecord(app, new StaffChain(app, principal.companyId), {
    companyId: principal.companyId,
    actorId: principal.userId,
    action: change.action,
    userId: principal.userId,
    reason: change.reason,
    details: { passkey_id: change.passkeyId },
  });
}

/** The audit line of a recorded change (with its reason), once its transaction committed. */
export function auditEmployeePasskey(app: App, origin: RequestOrigin | undefined, recorded: EmployeePasskeyRecord | undefined): void {
  if (recorded) auditStaffAction(app, origin, recorded.record, 'recorded');
}
