import { cancelledByThisRequest, pendingChangeCancelWrites } from '../account/phone-change-cancel.js';
import { warnOldNumber } from '../account/phone-change-notice.js';
import { PENDING_CHANGE_COMPLETES_WITHIN_SECONDS, taken } from '../account/phone-change-pending.js';
import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import { AppError, fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { allowedSmsDestination } from '../otp/sms-destinations.js';
import { accountBusy } from '../sessions/end-sessions.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { distinctUnreadShards } from '../store/notification-store.js';
import {
  getPendingPhoneChange,
  isLive,
  type PendingPhoneChange,
  pendingChangePut,
  phoneChangeIndexApproval,
  phoneChangeIndexDelete,
  phoneChangeIndexPut,
  phoneClaimFree,
  recoveryApproval,
} from '../store/pending-phone-change-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { UserStatus } from '../users/user-status.js';
import type { PhoneApproveCall, PhoneCancelCall, PhoneRecoverCall } from './phone-recovery-input.js';
import type { PhoneApproveResult, PhoneCancelResult, PhoneRecoverResult } from './phone-recovery-result.js';
import { auditStaffAction, staffActionOnUser } from './staff-actions.js';
import { requireStaff } from './staff-gate.js';

// Assisted recovery (API contract 3.14), for a user who lost both the number and every bound device.
// Support starts proofs; it never sets a credential: one employee starts a pending phone change
// (3.11) with via `support`, which runs only once ANOTHER employee, an admin, approves it. From then
// on it is the user's pending change: the hold, the old number warned, any live session able to
// cancel it, and only a code sent to the new number completes it. At completion the account loses
// every bound device and every session (phone-change-completion.ts): not at approval, so that the
// owner whose support desk was fooled can still cancel from the app during the hold.

/** How long a started recovery waits for its approval before it is void. */
export const RECOVERY_APPROVAL_WITHIN_SECONDS = 24 * HOUR_SECONDS;

const MAX_ROUNDS = 5;

const noSuchChange = (what = 'is not a pending phone change of this user') => fieldError('NOT_FOUND', 'change_id', what);

/** The user acted on: of this company, and active (a recovery completes only for an active user). */
async function activeUserOf(app: App, companyId: string, userId: string): Promise<UserRecord> {
  const user = await getUser(app.table, companyId, userId, true);
  if (!user) throw fieldError('NOT_FOUND', 'user_id', 'is not a user of this company');
  if (user.status_id !== UserStatus.ACTIVE) {
    throw fieldError('BAD_REQUEST', 'user_id', 'is not an active user: an admin enables a disabled account first');
  }
  return user;
}

/**
 * Starts a recovery: in one transaction the change is stored awaiting its approval (replacing the
 * user's pending change, if any), the new number's index item is taken (one pending change per
 * number), its claim is checked free, and the action is recorded with notice 8. Nothing is sent yet.
 */
export async function startPhoneRecovery(app: App, call: PhoneRecoverCall & RequestKey): Promise<PhoneRecoverResult> {
  const { body, principal, company, origin, idempotencyRef } = call;
  const { companyId } = principal;
  const staff = await requireStaff(app, principal, ['support', 'admin']);
  const user = await activeUserOf(app, companyId, body.user_id);
  if (user.phone_e164 === body.phone_e164) throw fieldError('BAD_REQUEST', 'phone_number', 'is the account’s number already');
  // A number a code can reach: a mobile line in the company's countries (400 code 15 otherwise).
  await allowedSmsDestination(company, body.phone_e164);
  for (let round = 1; ; round++) {
    const current = await getPendingPhoneChange(app.table, companyId, user.user_id, true);
    const now = epochSeconds(app.clock);
    if (idempotencyRef && isLive(current, now) && current.requested_by_request === idempotencyRef) {
      return {
        message: 'Recovery started: another employee, an admin, must approve it',
        change_id: current.change_id,
        approve_by: current.expires_at,
      };
    }
    const approveBy = now + RECOVERY_APPROVAL_WITHIN_SECONDS;
    const change: PendingPhoneChange = {
      change_id: newId(),
      user_type: user.user_type,
      dial_code: body.dial_code,
      phone_number: body.phone_number,
      phone_e164: body.phone_e164,
      via: 'support',
      created_at: now,
      // Never due while it awaits approval: the window from effective_at to expires_at is empty.
      effective_at: approveBy,
      expires_at: approveBy,
      awaiting_approval: 1,
      started_by: staff.userId,
      requested_by_request: idempotencyRef,
    };
    const { record, writes: recorded } = staffActionOnUser(app, {
      companyId,
      actorId: staff.userId,
      action: 'phone_recover',
      userId: user.user_id,
      reason: body.reason,
    });
    const index = { user_id: user.user_id, change_id: change.change_id, effective_at: approveBy, expires_at: approveBy };
    const writes: LabelledItem<string>[] = [
      { label: 'pending', item: pendingChangePut(app.table, companyId, user.user_id, change, current?.change_id) },
      { label: 'index', item: phoneChangeIndexPut(app.table, companyId, body.phone_e164, user.user_type, index, now) },
      { label: 'claim', item: phoneClaimFree(app.table, companyId, body.phone_e164, user.user_type) },
      ...recorded.map((item) => ({ label: 'record', item })),
    ];
    if (current && current.phone_e164 !== body.phone_e164 && current.ended_reason === undefined) {
      writes.push({
        label: 'old_index',
        item: phoneChangeIndexDelete(app.table, companyId, current.phone_e164, current.user_type, user.user_id),
      });
    }
    try {
      await writeTransaction(app.table, writes);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.labels.includes('claim') || error.labels.includes('index')) throw taken();
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    auditStaffAction(app, origin, record, 'started');
    return { message: 'Recovery started: another employee, an admin, must approve it', change_id: change.change_id, approve_by: approveBy };
  }
}

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
  const staff = await requireStaff(app, principal, ['admin']);
  const user = await activeUserOf(app, companyId, body.user_id);
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
  if (change.started_by === staff.userId) {
    throw new AppError('FORBIDDEN', { detail: 'another employee than the one who started the recovery must approve it' });
  }
  const effectiveAt = now + app.config.phoneChangeHoldHours * HOUR_SECONDS;
  const expiresAt = effectiveAt + PENDING_CHANGE_COMPLETES_WITHIN_SECONDS;
  const approval = { changeId: change.change_id, approverId: staff.userId, now, effectiveAt, expiresAt };
  // Notices 9 and 8 in one transaction: each on its own shard of the unread count.
  const [pendingShard, staffShard] = distinctUnreadShards(2);
  const { record, writes: recorded } = staffActionOnUser(
    app,
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
      ...recorded.map((item) => ({ label: 'record', item })),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // Cancelled, replaced or approved by another admin meanwhile.
    throw noSuchChange('is not a recovery awaiting approval');
  }
  auditStaffAction(app, origin, record, 'approved');
  await warnOldNumber(app, texts, { company, origin, userId: user.user_id, oldPhoneE164: user.phone_e164, pending: true });
  return answer({ ...change, effective_at: effectiveAt });
}

/**
 * Cancels a live pending change of the user, a recovery (awaiting approval or running) or the
 * user's own: the victim of a takeover who calls support is heard. Notice 10 and notice 8.
 */
export async function cancelPhoneChangeBySupport(app: App, call: PhoneCancelCall & RequestKey): Promise<PhoneCancelResult> {
  const { body, principal, origin, idempotencyRef } = call;
  const { companyId } = principal;
  const staff = await requireStaff(app, principal, ['support', 'admin']);
  const user = await getUser(app.table, companyId, body.user_id, true);
  if (!user) throw fieldError('NOT_FOUND', 'user_id', 'is not a user of this company');
  const answer = { message: 'Phone number change cancelled', change_id: body.change_id };
  const change = await getPendingPhoneChange(app.table, companyId, user.user_id, true);
  if (change?.change_id !== body.change_id) throw noSuchChange();
  // Notices 10 and 8 in one transaction: each on its own shard of the unread count.
  const [cancelShard, staffShard] = distinctUnreadShards(2);
  const { record, writes: recorded } = staffActionOnUser(
    app,
    { companyId, actorId: staff.userId, action: 'phone_cancel', userId: user.user_id, reason: body.reason },
    staffShard,
  );
  try {
    await writeTransaction(app.table, [
      ...pendingChangeCancelWrites(app, companyId, user.user_id, change, idempotencyRef, cancelShard),
      ...recorded.map((item) => ({ label: 'record' as const, item })),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (await cancelledByThisRequest(app, companyId, user.user_id, body.change_id, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  auditStaffAction(app, origin, record, 'cancelled');
  return answer;
}
