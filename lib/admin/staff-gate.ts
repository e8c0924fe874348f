import * as z from 'zod/mini';
import { loggedInWithin, staleLogin } from '../account/fresh-login.js';
import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { AppError } from '../errors.js';
import type { StaffRole } from '../store/staff-store.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserStatus } from '../users/user-status.js';
import { UserType } from '../users/user-types.js';

// Who may use the back office (API contract 3.14): an active employee of the company with a role
// the route allows, on a session begun by OTP or PIN login under ADMIN_SESSION_HOURS ago, giving a
// reason. The role is read from the employee's record on every call (strongly consistent), so a
// role taken away holds at once, not when a token expires.

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

/** An employee allowed to act, as read on this call. */
export interface Staff {
  userId: string;
  role: StaffRole;
  record: UserRecord & { role?: StaffRole };
}

const forbidden = (detail: string) => new AppError('FORBIDDEN', { detail });

/** The caller as staff with one of the `allowed` roles; refuses anyone else (403 code 5) and a stale session (400 code 14). */
export async function requireStaff(app: App, principal: Principal, allowed: readonly StaffRole[]): Promise<Staff> {
  if (principal.userType !== UserType.EMPLOYEE) throw forbidden('the back office is for the company’s employees');
  const hours = app.config.admin.sessionSeconds / 3600;
  if (!loggedInWithin(app, principal, app.config.admin.sessionSeconds)) {
    throw staleLogin(`log in again by OTP or PIN: the back office needs a session begun by one under ${hours} hours ago`);
  }
  const record = (await getUser(app.table, principal.companyId, principal.userId, true)) as (UserRecord & { role?: StaffRole }) | undefined;
  if (record?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  const role = record.role;
  if (!role) throw forbidden('this employee has no back-office role');
  if (!allowed.includes(role)) throw forbidden(`this needs the role ${allowed.join(' or ')}`);
  return { userId: principal.userId, role, record };
}
