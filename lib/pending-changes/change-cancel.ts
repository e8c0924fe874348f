import type { App } from '../app-context.js';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../call.js';
import { epochSeconds } from '../clock.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { pendingChangeKey } from '../store/keys.js';
import {
  getPendingChange,
  type PendingChange,
  type PendingChangeEnd,
  pendingChangeEnd,
  phoneChangeIndexDelete,
} from '../store/pending-change-store.js';
import type { LabelledItem } from '../store/transactions.js';

// Ending a pending change before it takes effect (API contract 3.11 and 3.15): by the user (any
// session), by not_me, by a right PIN on a settled device (a held PIN reset), by support, or void.
// What every such end writes is here; who may end which change is the caller's rule.

export interface ChangeEnd {
  reason: PendingChangeEnd;
  requestRef: string | undefined;
  /** The unread count's shard of its notice, when one transaction adds more than one (distinctUnreadShards). */
  unreadShard?: number | undefined;
  /** Void ends tell the user nothing (the change's number was taken, the account deleted): no notice. */
  quiet?: true;
}

/**
 * What ending a live pending change writes: the change marked ended (only while it is that change,
 * live), a phone change's index item by the new number deleted, and the notice (event 10).
 */
export function pendingChangeEndWrites(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  change: PendingChange,
  end: ChangeEnd,
): LabelledItem<'pending' | 'index' | 'notice'>[] {
  const writes: LabelledItem<'pending' | 'index' | 'notice'>[] = [
    {
      label: 'pending',
      item: pendingChangeEnd(app.table, pendingChangeKey(companyId, userId, change.kind), {
        changeId: change.change_id,
        reason: end.reason,
        now: epochSeconds(app.clock),
        requestRef: end.requestRef,
      }),
    },
  ];
  if (change.kind === 'phone') {
    writes.push({ label: 'index', item: phoneChangeIndexDelete(app.table, companyId, change.phone_e164, change.user_type, userId) });
  }
  if (!end.quiet) {
    const pinType = change.kind === 'login_pin' ? 'login' : change.kind === 'transaction_pin' ? 'transaction' : undefined;
    const notice = securityNotificationWrites(app.table, companyId, userId, {
      event: SecurityEvent.PHONE_CHANGE_CANCELLED,
      changeKind: change.kind,
      ...(pinType ? { pinType } : {}),
      nowMs: app.clock.now(),
      unreadShard: end.unreadShard,
    });
    writes.push(...notice.map((item) => ({ label: 'notice' as const, item })));
  }
  return writes;
}

/** Whether this very request ended the change (its answer lost), while its Idempotency-Key lives. */
export async function endedByThisRequest(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  change: Pick<PendingChange, 'kind' | 'change_id'>,
  requestRef: string | undefined,
): Promise<boolean> {
  if (!requestRef) return false;
  const now = await getPendingChange(app.table, companyId, userId, change.kind, true);
  if (now?.change_id !== change.change_id || now.ended_reason === undefined || now.ended_by_request !== requestRef) return false;
  return epochSeconds(app.clock) - (now.ended_at ?? 0) < IDEMPOTENCY_WINDOW_SECONDS;
}
