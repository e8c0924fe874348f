import type { App } from '../app-context.js';
import type { Principal, RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { fieldError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { needs } from '../sessions/session-strength.js';
import { isLive, type PendingChange, queryPendingChanges } from '../store/pending-change-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { endedByThisRequest, pendingChangeEndWrites } from './change-cancel.js';
import { stillWaits } from './pending-change-list.js';
import type { UserChangesCancelCall } from './user-changes-cancel-input.js';
import type { UserChangesCancelResult } from './user-changes-cancel-result.js';

// The user cancels a pending change (API contract 3.11 and 3.15): from any session, however it
// began, so the owner whose number was swapped away cancels from the app. A recovery started by
// support is the one exception (second reading): whoever swapped the SIM must not undo the owner's
// way back, so only staff, or a strong session whose credential is older than the recovery, cancel it.

const noSuchChange = () => fieldError('NOT_FOUND', 'change_id', 'is not a pending change of this user');

const MESSAGES: Record<PendingChange['kind'], string> = {
  phone: 'Phone number change cancelled',
  login_pin: 'Login PIN change cancelled',
  transaction_pin: 'Transaction PIN change cancelled',
  device_remove: 'Device removal cancelled',
  delete: 'Deletion cancelled',
  profile: 'Profile change cancelled',
  export: 'Export cancelled',
};

/** Whether the session may cancel a recovery by support: strong, on a credential bound before the recovery began. */
function mayCancelRecovery(principal: Principal, change: PendingChange): boolean {
  const session = principal.session;
  return session?.acr === 'strong' && session.credentialAt !== undefined && session.credentialAt < change.created_at;
}

/**
 * Cancels one of the user's pending changes, of any kind: one transaction marks it cancelled (only
 * while it is that change, live), frees a phone change's new number and writes notice 10; the
 * stream tells `user.change_cancelled`. A change_id that is not a pending change of the user's
 * (unknown, another user's, replaced, done, cancelled): 404 code 6. A retry of the request whose
 * answer was lost finds the change cancelled by it and answers as the first.
 */
export async function userChangesCancel(
  app: App,
  { body, principal, origin, idempotencyRef }: UserChangesCancelCall & RequestKey,
): Promise<UserChangesCancelResult> {
  const { companyId, userId } = principal;
  const change = (await queryPendingChanges(app.table, companyId, userId)).find((found) => found.change_id === body.change_id);
  if (!change) throw noSuchChange();
  const answer = { message: MESSAGES[change.kind], kind: change.kind };
  const now = epochSeconds(app.clock);
  // A recovery awaiting its approval is not the user's to see yet, but it is theirs to stop.
  const cancellable = stillWaits(change, now) || (change.kind === 'phone' && isLive(change, now));
  if (!cancellable) {
    if (await endedByThisRequest(app, companyId, userId, change, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  if (change.via === 'support' && !mayCancelRecovery(principal, change)) {
    throw needs(
      'strong',
      'a recovery started by support is cancelled by support, or by a strong session on a credential older than the recovery',
    );
  }
  try {
    await writeTransaction(
      app.table,
      pendingChangeEndWrites(app, companyId, userId, change, { reason: 'cancelled', requestRef: idempotencyRef }),
    );
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (await endedByThisRequest(app, companyId, userId, change, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  audit(app, origin, 'change_cancelled', {
    company_id: companyId,
    user_id: userId,
    outcome: 'cancelled',
    kind: change.kind,
    change_id: change.change_id,
  });
  return answer;
}
