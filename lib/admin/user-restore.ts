import { RestoreRefused, restoreUser } from '../account/restore.js';
import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { auditStaffAction } from '../staff/staff-actions.js';
import { UserStatus } from '../store/user-status.js';
import { beginActionOnUser, stateConflict } from './action-target.js';
import type { UserRestoreCall } from './user-restore-input.js';
import type { UserRestoreResult } from './user-restore-result.js';

// POST /wallet/v3/admin/users/restore (API contract 3.14): undoes a user's deletion before its
// erasure, as npm run user:restore (lib/account/restore.ts): active again with their phone and
// email claims back, in one transaction with the record of the action and notice 8. Its refusals:
// a phone or email someone registered since, 409 code 7 naming `phone` or `email`; a user not
// awaiting erasure, or past erase_after, 409 code 23.

const REFUSALS = {
  phone_taken: () => fieldError('ALREADY_REGISTERED', 'phone', 'is held by another user now: the account cannot take it back'),
  email_taken: () => fieldError('ALREADY_REGISTERED', 'email', 'is held by another user now: the account cannot take it back'),
  not_deleted: () => stateConflict('is not awaiting erasure: never deleted, or restored already'),
  erasure_due: () => stateConflict('is past its erase_after: the erasure is due and is no longer undone'),
};

export async function userRestore(app: App, call: UserRestoreCall): Promise<UserRestoreResult> {
  const { companyId, userId, record, recorded } = await beginActionOnUser(app, call, 'restore');
  try {
    await restoreUser(app, companyId, userId, recorded);
  } catch (error) {
    if (!(error instanceof RestoreRefused)) throw error;
    auditStaffAction(app, call.origin, record, error.reason);
    throw REFUSALS[error.reason]();
  }
  auditStaffAction(app, call.origin, record, 'restored');
  return { message: 'User restored', status_id: UserStatus.ACTIVE };
}
