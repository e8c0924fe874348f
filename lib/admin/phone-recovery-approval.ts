import { PENDING_CHANGE_COMPLETES_WITHIN_SECONDS } from '../account/phone-change-rules.js';
import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { warnNumberInDefaultLanguage } from '../pending-changes/warning-sms.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { auditStaffAction, staffActionOnUser } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { distinctUnreadShards } from '../store/notification-store.js';
import {
  getPendingPhoneChange,
  isLive,
  type PendingPhoneChange,
  phoneChangeIndexApproval,
  recoveryApproval,
} from '../store/pending-change-store.js';
import { awaitingRecoveryDelete } from '../store/staff-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { actionTarget } from './action-target.js';
import { requireApprover } from './approver-rules.js';
import type { PhoneApproveCall } from './phone-change-id-input.js';
import type { PhoneApproveResult } from './phone-recovery-result.js';
import { noSuchChange, requireActive } from './recovery-target.js';

// Its approval by a second employee, an admin (API contract 3.14; phone-recovery.ts says why), on
// a fresh strong session, by the approver rules of dual control (approver-rules.ts), within
// APPROVAL_WITHIN_SECONDS of the start.

/**
 * Approves a recovery (admin, not the one who started it): in one transaction the change runs from
 * now (effective_at = now + PHONE_CHANGE_HOLD_HOURS, void 7 days later), its index item follows,
 * and the user's list gets notice 9 (pending) and notice 8, with the record. Then the old number is
 * warned, as for the user's own pending change.
 */
export async function approvePhoneRecovery(
  app: App,
  call: PhoneApproveCall & RequestKey,
  texts: TextDispatch,
): Promise<PhoneApproveResult> {
  const { body, principal, company, origin } = call;
  const { companyId } = principal;
  const staff = await requireStaff(app, principal, ['admin'], { fresh: true });
  const user = requireActive(await actionTarget(app, staff, companyId, body.user_id));
  const change = await getPendingPhoneChange(app.table, companyId, user.user_id, true);
  const now = epochSeconds(app.clock);
  const answer = (approved: PendingPhoneChange) => ({
    message: 'Recovery approved: it completes at a login to the new number after the hold',
    change_id: approved.change_id,
    effective_at: approved.effective_at,
  });
  if (change?.change_id !== body.change_id || !isLive(change, now)) throw noSuchChange();
  // Approved already by this admin (a retry whose answer was lost): the same answer.
  if (change.awaiting_approval === undefined && change.approved_by === staff.userId) return answer(change);
  if (change.awaiting_approval === undefined) throw noSuchChange('is not a recovery awaiting approval');
  await requireApprover(app, staff, { starterId: change.started_by ?? '', field: 'change_id' });
  const effectiveAt = now + app.config.phoneChangeHoldHours * HOUR_SECONDS;
  const expiresAt = effectiveAt + PENDING_CHANGE_COMPLETES_WITHIN_SECONDS;
  const approval = { changeId: change.change_id, approverId: staff.userId, now, effectiveAt, expiresAt };
  // Notices 9 and 8 in one transaction: each on its own shard of the unread count.
  const [pendingShard, staffShard] = distinctUnreadShards(2);
  const { record, writes: recorded } = await staffActionOnUser(
    app,
    staff.chain,
    { companyId, actorId: staff.userId, action: 'phone_approve', userId: user.user_id, reason: body.reason },
    staffShard,
  );
  try {
    await writeTransaction(app.table, [
      { label: 'pending', item: recoveryApproval(app.table, companyId, user.user_id, approval) },
      {
        label: 'index',
        item: phoneChangeIndexApproval(app.table, companyId, change.phone_e164, change.user_type, { ...approval, userId: user.user_id }),
      },
      ...securityNotificationWrites(app.table, companyId, user.user_id, {
        event: SecurityEvent.PHONE_CHANGE_PENDING,
        nowMs: app.clock.now(),
        unreadShard: pendingShard,
      }).map((item) => ({ label: 'notice', item })),
      ...recorded,
      { label: 'listed', item: awaitingRecoveryDelete(app.table, companyId, change.change_id) },
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // Cancelled, replaced or approved by another admin meanwhile.
    throw noSuchChange('is not a recovery awaiting approval');
  }
  auditStaffAction(app, origin, record, 'approved');
  const warning = { kind: 'held', change: 'phone' } as const;
  // The staff member's Accept-Language is not the user's: the company's default language tells the number.
  await warnNumberInDefaultLanguage(app, texts, { company, origin, userId: user.user_id, phoneE164: user.phone_e164, warning });
  return answer({ ...change, effective_at: effectiveAt });
}
