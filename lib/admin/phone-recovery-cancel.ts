import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { endedByThisRequest, pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { auditStaffAction, staffActionOnUser } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { distinctUnreadShards } from '../store/notification-store.js';
import { isLive, queryPendingChanges } from '../store/pending-change-store.js';
import { awaitingRecoveryDelete } from '../store/staff-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { actionTarget } from './action-target.js';
import type { PhoneCancelCall } from './phone-change-id-input.js';
import type { PhoneCancelResult } from './phone-recovery-result.js';
import { noSuchChange } from './recovery-target.js';

// A pending change cancelled by support (API contract 3.14, and 3.15: of any kind): a recovery, or
// one the user (or whoever holds their SIM) asked for.

/**
 * Cancels a live pending change of the user, of any kind: a recovery (awaiting approval or
 * running), a phone change, a new PIN or a device removal that waits: the victim of a takeover who
 * calls support is heard. Notice 10 and notice 8.
 */
export async function cancelPhoneChangeBySupport(app: App, call: PhoneCancelCall & RequestKey): Promise<PhoneCancelResult> {
  const { body, principal, origin, idempotencyRef } = call;
  const { companyId } = principal;
  const staff = await requireStaff(app, principal, ['support', 'admin']);
  // Whom it acts on as every action does: not one's own account, an employee only by an admin.
  const user = await actionTarget(app, staff, companyId, body.user_id);
  const change = (await queryPendingChanges(app.table, companyId, user.user_id)).find((found) => found.change_id === body.change_id);
  if (!change) throw noSuchChange();
  const answer = {
    message: change.kind === 'phone' ? 'Phone number change cancelled' : 'Pending change cancelled',
    change_id: body.change_id,
  };
  if (!isLive(change, epochSeconds(app.clock))) {
    if (await endedByThisRequest(app, companyId, user.user_id, change, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  // Notices 10 and 8 in one transaction: each on its own shard of the unread count.
  const [cancelShard, staffShard] = distinctUnreadShards(2);
  const { record, writes: recorded } = await staffActionOnUser(
    app,
    staff.chain,
    { companyId, actorId: staff.userId, action: 'phone_cancel', userId: user.user_id, reason: body.reason },
    staffShard,
  );
  try {
    await writeTransaction(app.table, [
      ...pendingChangeEndWrites(app, companyId, user.user_id, change, {
        reason: 'cancelled',
        requestRef: idempotencyRef,
        unreadShard: cancelShard,
      }),
      ...recorded,
      // Off the approvals list, whether it awaited approval or not (a delete of nothing is nothing).
      { label: 'listed', item: awaitingRecoveryDelete(app.table, companyId, change.change_id) },
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (await endedByThisRequest(app, companyId, user.user_id, change, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  auditStaffAction(app, origin, record, 'cancelled');
  return answer;
}
