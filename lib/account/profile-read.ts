import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { deleteDueAccount } from '../deletion/account-deletion.js';
import { waitingChanges } from '../pending-changes/pending-change-list.js';
import { queryPendingChanges } from '../store/pending-change-store.js';
import { accountGone, activeUser, pendingPhoneChangeOf, phoneChangeOf, profileOf } from './profile.js';
import { withDueProfileChange } from './profile-change.js';
import type { UserProfileResult } from './profile-result.js';
import type { UserProfileCall } from './profile-update-input.js';

// GET /wallet/v3/user/profile (API contract 3.11): a held deletion or profile change that is due
// lands here (contract 3.15, second reading), before the record is shown.

export async function userProfile(app: App, { principal, origin }: UserProfileCall): Promise<UserProfileResult> {
  const [user, changes] = await Promise.all([
    activeUser(app, principal.companyId, principal.userId),
    queryPendingChanges(app.table, principal.companyId, principal.userId),
  ]);
  // A held deletion that is due lands now (contract 3.15, second reading): the session ended with it.
  if (await deleteDueAccount(app, origin, principal.companyId, principal.userId, changes)) throw accountGone();
  // So does a held change of the names, birth date or email.
  const current = await withDueProfileChange(app, origin, user, changes);
  const now = epochSeconds(app.clock);
  return {
    user: profileOf(current),
    pending_phone_change: pendingPhoneChangeOf(phoneChangeOf(changes), now),
    pending_changes: waitingChanges(current === user ? changes : await queryPendingChanges(app.table, user.company_id, user.user_id), now),
  };
}
