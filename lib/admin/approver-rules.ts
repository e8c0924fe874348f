import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import { AppError, fieldError } from '../errors.js';
import type { EmployeeRecord, Staff } from '../staff/staff-gate.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';

// Who may approve what another employee asked (API contract 3.14, round 6): a recovery or a grant
// (of a role, or of the company's security settings). Dual control holds only if the two halves are
// two people: so the approver is refused (403 code 5) when they are the one who asked (the starter),
// when one of the two made the other (registered them, or asked for their current role: a puppet
// of either is the same person twice), when they registered the employee a grant is for, or while
// the approver's role, or the starter's record or role, is younger than ADMIN_APPROVER_MIN_HOURS
// (someone made this week, perhaps by the very person whose request waits). Unapproved, a request
// is void after APPROVAL_WITHIN_SECONDS. docs/back-office.md, "Dual control", lists each with why.

/** How long a request (a recovery, a grant) waits for its approval before it is void. */
export const APPROVAL_WITHIN_SECONDS = 72 * HOUR_SECONDS;

/** When an employee's current role was given: role_since, or for a role given before round 6 the last change of the record (no older than the role). */
export function roleSince(employee: EmployeeRecord): number {
  return employee.role_since ?? employee.updated_at ?? employee.created_at;
}

const refused = (detail: string) => new AppError('FORBIDDEN', { detail });

/** What was asked, and by whom: the starter of a recovery, or the admin who asked for a grant, and the employee a role grant is for. */
export interface ApprovalOf {
  starterId: string;
  /** The field that names the request, for a refusal that is about it (409 code 23). */
  field: 'change_id' | 'grant_id';
  grantee?: EmployeeRecord | undefined;
}

/**
 * Refuses an approver who may not approve this request (403 code 5), and a request whose starter is
 * no longer an active employee with a role (409 code 23: ask again).
 */
export async function requireApprover(app: App, approver: Staff, request: ApprovalOf): Promise<void> {
  if (approver.userId === request.starterId) throw refused('another admin than the one who asked must approve it');
  const now = epochSeconds(app.clock);
  const min = app.config.admin.approverMinSeconds;
  const hours = `${min / HOUR_SECONDS} hours`;
  if (now - roleSince(approver.record) < min) throw refused(`an admin approves nothing in their first ${hours} as admin`);
  const starter = (await getUser(app.table, approver.record.company_id, request.starterId, true)) as EmployeeRecord | undefined;
  if (starter?.status_id !== UserStatus.ACTIVE || !starter.role) {
    throw fieldError('STATE_CONFLICT', request.field, 'was asked by an employee who is no longer active staff: ask again');
  }
  if (starter.cretaed_by === approver.userId) throw refused('you registered the employee who asked: another admin approves');
  if (starter.role_granted_by === approver.userId)
    throw refused('you asked for the role of the employee who asked: another admin approves');
  if (approver.record.cretaed_by === starter.user_id || approver.record.role_granted_by === starter.user_id) {
    throw refused('the employee who asked registered you, or asked for your role: another admin approves');
  }
  if (now - starter.created_at < min) throw refused(`the employee who asked was registered less than ${hours} ago`);
  if (now - roleSince(starter) < min) throw refused(`the employee who asked has had their role less than ${hours}`);
  if (request.grantee?.cretaed_by === approver.userId)
    throw refused('you registered the employee this grant is for: another admin approves');
}
