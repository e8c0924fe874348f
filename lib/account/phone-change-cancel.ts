import type { App } from '../app-context.js';
import { IDEMPOTENCY_WINDOW_SECONDS, type RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { fieldError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit } from '../observability/audit.js';
import { pendingPhoneChangeKey } from '../store/keys.js';
import {
  getPendingPhoneChange,
  type PendingPhoneChange,
  pendingChangeEnd,
  phoneChangeIndexDelete,
} from '../store/pending-phone-change-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import type { UserPhoneChangeCancelCall } from './phone-change-cancel-input.js';
import type { UserPhoneChangeCancelResult } from './phone-change-cancel-result.js';

// Cancelling a pending phone change (API contract 3.11, amended in round 5): any live session of
// the user may, however it began; the owner whose old number was swapped away cancels from the app.

/** A change_id that is not the user's live pending change: unknown, another user's, replaced, cancelled, completed or void. */
const noSuchChange = () => fieldError('NOT_FOUND', 'change_id', 'is not a pending phone change of this user');

const answer = { message: 'Phone number change cancelled' };

/**
 * Cancels the user's pending change named by change_id: one transaction marks it cancelled (only
 * while it is that change, live), deletes its index item by the new number and writes the notice
 * (event 10); the stream tells `user.phone_change_cancelled`. A retry of the same request whose
 * answer was lost finds the change cancelled by it and answers as the first.
 */
export async function userPhoneChangeCancel(
  app: App,
  { body, principal, origin, idempotencyRef }: UserPhoneChangeCancelCall & RequestKey,
): Promise<UserPhoneChangeCancelResult> {
  const { companyId, userId } = principal;
  const change = await getPendingPhoneChange(app.table, companyId, userId, true);
  if (change?.change_id !== body.change_id) throw noSuchChange();
  try {
    await writeTransaction(app.table, pendingChangeCancelWrites(app, companyId, userId, change, idempotencyRef));
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (await cancelledByThisRequest(app, companyId, userId, body.change_id, idempotencyRef)) return answer;
    throw noSuchChange();
  }
  audit(app, origin, 'phone_change_cancelled', {
    company_id: companyId,
    user_id: userId,
    outcome: 'cancelled',
    change_id: change.change_id,
  });
  return answer;
}

/**
 * What cancelling a live pending change writes: the change marked cancelled (only while it is that
 * change, live), its index item by the new number deleted, and the notice (event 10).
 */
export function pendingChangeCancelWrites(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  change: PendingPhoneChange,
  requestRef: string | undefined,
  unreadShard?: number,
): LabelledItem<'pending' | 'index' | 'notice'>[] {
  return [
    {
      label: 'pending',
      item: pendingChangeEnd(app.table, pendingPhoneChangeKey(companyId, userId), {
        changeId: change.change_id,
        reason: 'cancelled',
        now: epochSeconds(app.clock),
        requestRef,
      }),
    },
    { label: 'index', item: phoneChangeIndexDelete(app.table, companyId, change.phone_e164, change.user_type, userId) },
    ...securityNotificationWrites(app.table, companyId, userId, {
      event: SecurityEvent.PHONE_CHANGE_CANCELLED,
      nowMs: app.clock.now(),
      unreadShard,
    }).map((item) => ({ label: 'notice' as const, item })),
  ];
}

/** Whether this very request cancelled the change, while its Idempotency-Key lives. */
export async function cancelledByThisRequest(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  changeId: string,
  requestRef: string | undefined,
): Promise<boolean> {
  if (!requestRef) return false;
  const change = await getPendingPhoneChange(app.table, companyId, userId, true);
  if (change?.change_id !== changeId || change.ended_reason !== 'cancelled' || change.ended_by_request !== requestRef) return false;
  return epochSeconds(app.clock) - (change.ended_at ?? 0) < IDEMPOTENCY_WINDOW_SECONDS;
}
