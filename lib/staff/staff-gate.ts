import * as z from 'zod/mini';
import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { AppError } from '../errors.js';
import { loggedInWithin, staleLogin } from '../sessions/fresh-login.js';
import { requireFreshStrong, requireStrong } from '../sessions/session-strength.js';
import type { StaffRole } from '../store/staff-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import { StaffChain } from './staff-chain.js';

// Who may use the back office (API contract 3.14): an active employee of the company with a role
// the route allows, on a strong session (3.15: a PIN login on a settled device, or a passkey) begun
// by a login under ADMIN_SESSION_HOURS ago, giving a reason; what only an admin may do needs the
// strong proof fresh too (STEP_UP_MAX_AGE_SECONDS, round 6's second reading). The role is read from
// the employee's record on every call (strongly consistent), so a role taken away holds at once,
// not when a token expires. The company's staff chain head is read beside it: the record of the
// call is appended after it.

/** Why the employee acts (a ticket number, a call): kept in the record and the audit log, never in an event. */
export const staffReason = () =>
  z
    .string({ error: 'is required: why you act, such as a ticket number (1 to 200 characters)' })
    .check(
      z.trim(),
      z.minLength(1, 'is required: why you act, such as a ticket number (1 to 200 characters)'),
      z.maxLength(200, 'must be at most 200 characters'),
      z.meta({ description: 'Why the employee acts, such as a ticket number: kept in the record of the action, never in an event' }),
    );

/** An employee's record with what the back office keeps on it: the role, when and by whom it was granted. */
export type EmployeeRecord = UserRecord & {
  role?: StaffRole;
  /** Epoch seconds the current role was given (absent for a role given before round 6). */
  role_since?: number;
  /** Who asked for the current role (an admin's id, or operator). */
  role_granted_by?: string;
  /** Who approved the current role's grant (absent for a role set at once: the operator's). */
  role_approved_by?: string;
};

/** An employee allowed to act, as read on this call, and their company's staff chain. */
export interface Staff {
  userId: string;
  role: StaffRole;
  record: EmployeeRecord;
  chain: StaffChain;
}

/** What a route asks beyond the role: `fresh` for what only an admin may do (a strong proof under STEP_UP_MAX_AGE_SECONDS old). */
export interface StaffTerms {
  fresh?: boolean;
}

const forbidden = (detail: string) => new AppError('FORBIDDEN', { detail });

/**
 * The caller as staff with one of the `allowed` roles; refuses anyone else (403 code 5, whatever
 * their session), then a session too old for the back office (400 code 14), then one not strong
 * enough for the route (403 code 5, data.needs strong or strong_fresh): the role first, since
 * neither a new login nor a stronger session would help a wrong role.
 */
export async function requireStaff(app: App, principal: Principal, allowed: readonly StaffRole[], terms: StaffTerms = {}): Promise<Staff> {
  if (principal.userType !== UserType.EMPLOYEE) throw forbidden('the back office is for the company’s employees');
  const chain = new StaffChain(app, principal.companyId);
  const record = await readEmployee(app, principal);
  const role = record.role;
  if (!role) throw forbidden('this employee has no back-office role');
  if (!allowed.includes(role)) throw forbidden(`this needs the role ${allowed.join(' or ')}`);
  const hours = app.config.admin.sessionSeconds / 3600;
  if (!loggedInWithin(app, principal, app.config.admin.sessionSeconds)) {
    throw staleLogin(`log in again by OTP or PIN: the back office needs a session begun by one under ${hours} hours ago`);
  }
  if (terms.fresh) requireFreshStrong(app, principal, 'what only an admin may do');
  else requireStrong(principal, 'the back office');
  return { userId: principal.userId, role, record, chain };
}

/** The calling employee's record, strongly consistent; an employee no longer active is no one (401). */
async function readEmployee(app: App, principal: Principal): Promise<EmployeeRecord & { role?: StaffRole }> {
  const record = (await getUser(app.table, principal.companyId, principal.userId, true)) as EmployeeRecord | undefined;
  if (record?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  return record;
}
