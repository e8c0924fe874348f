import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { staffFreezeWrites } from '../pending-changes/staff-freeze.js';
import { accountBusy, changeEndingSessions, statusChangeItems } from '../sessions/end-sessions.js';
import { auditStaffAction } from '../staff/staff-actions.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { lastActiveAdmin, leftNoActiveAdmin, seatsOnBecomingActive, seatsOnLeavingActive } from '../users/active-admins.js';
import { beginActionOnUser, noSuchUser, stateConflict } from './action-target.js';
import type { UserStatusSetCall } from './user-status-set-input.js';
import type { UserStatusSetResult } from './user-status-set-result.js';

// POST /wallet/v3/admin/users/status (API contract 3.14): support or an admin disables an active
// user (status 2, every session ended with reason `disabled`, as npm run user:disable); only an
// admin enables a disabled one again (2 to 1). No other move: a reclaimed, deleting or erased
// account is not the back office's to set (409 code 23; a deletion is undone by restore). Each in
// one transaction with the record of the action and notice 8, conditional on the status read.

const STATUS_NAMES: Record<number, string> = {
  [UserStatus.ACTIVE]: 'active',
  [UserStatus.DISABLED]: 'disabled',
  [UserStatus.PHONE_RECLAIMED]: 'reclaimed by its phone’s verified owner',
  [UserStatus.DELETION_REQUESTED]: 'deleted, awaiting erasure (restore it instead)',
  [UserStatus.ERASED]: 'erased',
};

const wrongStatus = (user: Pick<UserRecord, 'status_id'>, needed: string) =>
  stateConflict(`is ${STATUS_NAMES[user.status_id] ?? `in status ${user.status_id}`}: only ${needed}`);

/**
 * Disables a user (status 2 on the user and the phone claim they hold) and ends every
 * session of theirs, in one transaction with `items` (the record of the action): as
 * setStatusEndingSessions does, and also keeping the company's count of active admins right
 * (active-admins.ts). The last active admin is not disabled: ConditionsFailed on `admins`, answered
 * 409 code 21. The back office's disable and npm run user:disable.
 */
export async function disableUser(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  /** `refused`: only an active user is disabled, others refused with its error (the operator's command sets 2 from any status). */
  terms: { refused?: (user: UserRecord) => Error; items?: LabelledItem<string>[]; freeze?: boolean } = {},
): Promise<number> {
  const from = terms.refused ? UserStatus.ACTIVE : undefined;
  try {
    return await changeEndingSessions(app, companyId, userId, 'disabled', async (user, version) => {
      // A status changed meanwhile fails the condition below, and the round after reads it here.
      if (terms.refused && user.status_id !== UserStatus.ACTIVE) throw terms.refused(user);
      return [
        ...(await statusChangeItems(app, companyId, user, UserStatus.DISABLED, version, from)),
        ...seatsOnLeavingActive(app.table, companyId, user),
        // Staff's disable strips the owner's defences: their SMS-strength changes end, new ones freeze (contract 3.15).
        ...(terms.freeze ? await staffFreezeWrites(app, companyId, userId, 'user') : []),
        ...(terms.items ?? []),
      ];
    });
  } catch (error) {
    if (leftNoActiveAdmin(error)) throw lastActiveAdmin();
    throw error;
  }
}

export async function userStatusSet(app: App, call: UserStatusSetCall): Promise<UserStatusSetResult> {
  // Enabling undoes what may have stopped a takeover: an admin's call, never support's alone.
  const allowed = call.body.status === 'active' ? (['admin'] as const) : (['support', 'admin'] as const);
  const { companyId, userId, user, record, recorded } = await beginActionOnUser(app, call, 'status', allowed, {
    fresh: call.body.status === 'active',
  });
  const refusedAs = (seen: Pick<UserRecord, 'status_id'>, needed: string) => {
    auditStaffAction(app, call.origin, record, 'wrong_status');
    return wrongStatus(seen, needed);
  };

  if (call.body.status === 'disabled') {
    let revoked: number;
    try {
      revoked = await disableUser(app, companyId, userId, {
        refused: (seen) => refusedAs(seen, 'an active user is disabled'),
        items: recorded,
        freeze: true,
      });
    } catch (error) {
      if (error instanceof AppError && error.errorName === 'LAST_ADMIN') auditStaffAction(app, call.origin, record, 'last_admin');
      throw error;
    }
    auditStaffAction(app, call.origin, record, 'disabled');
    return { message: 'User disabled', status_id: UserStatus.DISABLED, revoked };
  }

  const refused = (seen: Pick<UserRecord, 'status_id'>) => refusedAs(seen, 'a disabled user is enabled');
  if (user.status_id !== UserStatus.DISABLED) throw refused(user);
  // A disabled user is granted no session, so the version read holds; the status is the condition.
  // A disabled admin enabled is an active admin again: a seat and one more in the count.
  const items = await statusChangeItems(app, companyId, user, UserStatus.ACTIVE, user.session_version ?? 0, UserStatus.DISABLED);
  const seats = seatsOnBecomingActive(app.table, companyId, user, epochSeconds(app.clock));
  try {
    await writeTransaction<string>(app.table, [...items, ...seats, ...recorded]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // Changed meanwhile: answer what it is now.
    const now = await getUser(app.table, companyId, userId, true);
    if (!now) throw noSuchUser();
    if (now.status_id !== UserStatus.DISABLED) throw refused(now);
    throw accountBusy();
  }
  auditStaffAction(app, call.origin, record, 'enabled');
  return { message: 'User enabled', status_id: UserStatus.ACTIVE, revoked: 0 };
}
