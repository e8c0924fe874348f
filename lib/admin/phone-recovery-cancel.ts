import { cancelledByThisRequest, pendingChangeCancelWrites } from '../account/phone-change-cancel.js';
import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { distinctUnreadShards } from '../store/notification-store.js';
import { getPendingPhoneChange } from '../store/pending-phone-change-store.js';
import { awaitingRecoveryDelete } from '../store/staff-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { actionTarget } from './action-target.js';
import type { PhoneCancelCall } from './phone-change-id-input.js';
import type { PhoneCancelResult } from './phone-recovery-result.js';
import { noSuchChange } from './recovery-target.js';
import { auditStaffAction, staffActionOnUser } from './staff-actions.js';
import { requireStaff } from './staff-gate.js';

// A pending change cancelled by support (API contract 3.14): a recovery, or the user's own change.

/**
 * Cancels a live pending change of the user, a recovery (awaiting approval or running) or the
 * user's own: the victim of a takeover who calls support is heard. Notice 10 and notice 8.
 */
export async function cancelPhoneChangeBySupport(app: App, call: PhoneCancelCall & RequestKey): Promise<PhoneCancelResult> {
  const { body, principal, origin, idempotencyRef } = call;
  const { companyId } = principal;
  const staff = await requireStaff(app, principal, ['support', 'admin']);
  // Whom it acts on as every action does: not one's own account, an employee only by an admin.
  const user = await actionTarget(app, staff, companyId, body.user_id);
  const answer = { message: 'Phone number change cancelled', change_id: body.change_id };
  const change = await getPendingPhoneChange(app.table, companyId, user.user_id, true);
  if (change?.change_id !== body.change_id) throw noSuchChange();
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
      ...pendingChangeCancelWrites(app, companyId, user.user_id, change, idempotencyRef, cancelShard),
      ...recorded,
      // Off the approvals list, whether it awaited approval or not (a delete of nothing is nothing).
      { label: 'listed', item: awaitingRecoveryDelete(app.table, companyId, change.change_id) },
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (await cancelledByThisRequest(app, companyId, user.user_id, body.change_id, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  auditStaffAction(app, origin, record, 'cancelled');
  return answer;
}
