import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserStatus } from '../users/user-status.js';
import { stateConflict } from './action-target.js';

// Whom and what a recovery step names (API contract 3.14): a module of its own, so that the approval
// and the cancel take it without the phone number's parsing.

export const noSuchChange = (what = 'is not a pending phone change of this user') => fieldError('NOT_FOUND', 'change_id', what);

/** The user acted on: of this company, and active (a recovery completes only for an active user). */
export async function activeUserOf(app: App, companyId: string, userId: string): Promise<UserRecord> {
  const user = await getUser(app.table, companyId, userId, true);
  if (!user) throw fieldError('NOT_FOUND', 'user_id', 'is not a user of this company');
  if (user.status_id !== UserStatus.ACTIVE) throw stateConflict('is not an active user: an admin enables a disabled account first');
  return user;
}
