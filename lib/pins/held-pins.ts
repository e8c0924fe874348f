import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { type ChangeEnd, pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { waitingOfKind } from '../pending-changes/pending-change-list.js';
import { pendingChangeKey } from '../store/keys.js';
import { isDue, type PendingChange, type PendingPinChange, pendingChangeComplete } from '../store/pending-change-store.js';
import type { PinType } from '../store/pin-store.js';
import { ConditionsFailed, type LabelledItem } from '../store/transactions.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import { setPin } from './set-pin.js';

// A PIN that waits (API contract 3.15): a reset or change asked for from an SMS-strength session is
// a pending change of kind login_pin or transaction_pin, holding the new PIN's hash. Until its
// effective_at the current PIN stays the PIN, locked or not; from then on the new one is, and the
// first check of that PIN puts it in place (withDuePinApplied). A held reset is void when the
// current PIN is entered right on a settled device meanwhile: the owner is present (second reading).

/** What a PIN staff set at a registration answers (403 code 5, needs pin_setup): how the user sets their own. */
export const PIN_SETUP_DETAIL =
  'this PIN was set by staff at registration: set your own first (POST /wallet/v3/auth/reset_pin from a session begun by OTP login)';

/** The pending change kind of a PIN. */
export const PIN_CHANGE_KIND = { login: 'login_pin', transaction: 'transaction_pin' } as const satisfies Record<PinType, string>;

/**
 * The user as their PIN of this type stands now: a held change of it that is due is put in place
 * first, as a reset or change at its effective_at would have been (every session begun before then
 * but the asking one ends, every tally cleared, its notice), in one transaction with the change's deletion. Answers the record read
 * after, or the one given when nothing was due.
 */
export async function withDuePinApplied(
  app: App,
  origin: RequestOrigin | undefined,
  user: UserRecord,
  changes: PendingChange[],
  pinType: PinType,
): Promise<UserRecord> {
  const now = epochSeconds(app.clock);
  const kind = PIN_CHANGE_KIND[pinType];
  const due = changes.find((change): change is PendingPinChange => change.kind === kind && isDue(change, now));
  if (!due) return user;
  const { company_id: companyId, user_id: userId } = user;
  try {
    const revoked = await setPin(
      app,
      { companyId, userId, keptSessionId: due.requested_by_session, endBegunBefore: due.effective_at },
      {
        pinType,
        hash: due.pin_hash,
        event: due.reason === 'reset' ? 'PIN_RESET' : 'PIN_CHANGED',
        items: [
          { label: 'pending', item: pendingChangeComplete(app.table, pendingChangeKey(companyId, userId, kind), due.change_id, now) },
        ],
      },
    );
    audit(app, origin, 'change_completed', {
      company_id: companyId,
      user_id: userId,
      outcome: 'pin_set',
      kind,
      change_id: due.change_id,
      revoked,
    });
  } catch (error) {
    // Put in place (or cancelled) by another request meanwhile: the record says which.
    if (!(error instanceof ConditionsFailed && error.labels.includes('pending'))) throw error;
  }
  return (await getUser(app.table, companyId, userId, true)) ?? user;
}

/**
 * The writes that void a held reset of this PIN: it was entered right on a settled device, so the
 * owner, who still knows it, is present (notice 10, user.change_cancelled with reason pin_proven).
 * None when no reset of it waits.
 */
export function heldResetVoidWrites(
  app: Pick<App, 'table' | 'clock'>,
  user: Pick<UserRecord, 'company_id' | 'user_id'>,
  changes: PendingChange[],
  pinType: PinType,
  end: Omit<ChangeEnd, 'reason'>,
): LabelledItem<string>[] {
  const held = waitingOfKind(changes, PIN_CHANGE_KIND[pinType], epochSeconds(app.clock));
  if (held?.reason !== 'reset') return [];
  return pendingChangeEndWrites(app, user.company_id, user.user_id, held, { ...end, reason: 'pin_proven' });
}
