import { fieldError } from '../errors.js';
import { UserStatus } from '../store/user-status.js';
import type { UserRecord } from '../store/user-store.js';
import { stateConflict } from './action-target.js';

// Whom and what a recovery step names (API contract 3.14): a module of its own, so that the approval
// and the cancel take it without the phone number's parsing.

export const noSuchChange = (what = 'is not a pending phone change of this user') => fieldError('NOT_FOUND', 'change_id', what);

/** A recovery is for an active user (it completes only for one): 409 code 23 otherwise. */
export function requireActive(user: UserRecord): UserRecord {
  if (user.status_id !== UserStatus.ACTIVE) throw stateConflict('is not an active user: an admin enables a disabled account first');
  return user;
}
