import * as z from 'zod/mini';
import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { AppError, fieldError } from '../errors.js';
import { hexIdField } from '../ids.js';
import { type ActionOnUser, staffActionOnUser } from '../staff/staff-actions.js';
import { requireStaff, type Staff, type StaffTerms, staffReason } from '../staff/staff-gate.js';
import type { StaffRole } from '../store/staff-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';

// The user a back-office action names (API contract 3.14): a user of the employee's company (the
// key holds the company, so another company's user is no user here: 404 code 6, as an unknown one).
// An erased account has nothing left to act on. Staff act on others: their own account through the
// app, like any user; and only an admin acts on an employee, so support cannot end the sessions of,
// or disable, the admins who oversee them.

/** The fields every action's body has: whom it acts on, and why. */
export const actionFields = () => ({
  user_id: hexIdField('user id').check(z.meta({ description: 'The user acted on: a user of the company' })),
  reason: staffReason(),
});

/** 404 code 6 on user_id: no such user of this company (or erased). */
export const noSuchUser = () => fieldError('NOT_FOUND', 'user_id', 'is no user of this company');

/** The user an action of `staff` names, read strongly consistently; refuses one it may not act on. */
export async function actionTarget(app: App, staff: Staff, companyId: string, userId: string): Promise<UserRecord> {
  const user = await getUser(app.table, companyId, userId, true);
  if (!user || user.status_id === UserStatus.ERASED) throw noSuchUser();
  if (userId === staff.userId) throw new AppError('FORBIDDEN', { detail: 'act on your own account in the app, not in the back office' });
  if (user.user_type === UserType.EMPLOYEE && staff.role !== 'admin') {
    throw new AppError('FORBIDDEN', { detail: 'only an admin acts on an employee’s account' });
  }
  return user;
}

/**
 * An action on a user begins (contract 3.14): the caller as staff of an allowed role, the user it
 * names (refused as actionTarget refuses), and its record with notice 8, labelled for the action's
 * own transaction.
 */
export async function beginActionOnUser(
  app: App,
  call: { principal: Principal; body: { user_id: string; reason: string } },
  action: ActionOnUser,
  allowed: readonly StaffRole[] = ['support', 'admin'],
  terms: StaffTerms = {},
  /** The unread count's shard of notice 8, when the action's transaction adds another notice (distinctUnreadShards). */
  unreadShard?: number,
) {
  const { companyId } = call.principal;
  const staff = await requireStaff(app, call.principal, allowed, terms);
  const userId = call.body.user_id;
  const user = await actionTarget(app, staff, companyId, userId);
  const { record, writes: recorded } = await staffActionOnUser(
    app,
    staff.chain,
    {
      companyId,
      actorId: staff.userId,
      action,
      userId,
      reason: call.body.reason,
    },
    unreadShard,
  );
  return { staff, companyId, userId, user, record, recorded: recorded as LabelledItem<'record'>[] };
}

/** 409 code 23: the user's status does not allow the action (`detail` says which it is and what is needed). */
export const stateConflict = (detail: string) => fieldError('STATE_CONFLICT', 'user_id', detail);
