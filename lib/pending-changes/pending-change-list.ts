import * as z from 'zod/mini';
import {
  isRunning,
  PENDING_CHANGE_KINDS,
  type PendingChange,
  type PendingChangeKind,
  type PendingPhoneChange,
} from '../store/pending-change-store.js';

// Pending changes as the user, the back office and a login answer show them (API contract 3.15):
// one list per user, whatever the kind. Never a hash or a whole number: the kind, when, who asked,
// and for a phone change the new number's last 4 digits.

/** One pending change as listed. */
export const listedPendingChange = z.object({
  change_id: z.string(),
  kind: z.enum(PENDING_CHANGE_KINDS).check(
    z.meta({
      description:
        'phone: a new number; login_pin or transaction_pin: a new PIN (reset_pin or change_pin); device_remove: a settled device removed; ' +
        'delete, profile, export: the account deleted, its names, birth date or email changed, its export delivered',
    }),
  ),
  effective_at: z.int().check(z.meta({ description: 'UNIX seconds from which it takes effect unless cancelled' })),
  via: z.enum(['user', 'support']).check(z.meta({ description: 'who asked: the user, or support (a recovery)' })),
  phone_last4: z.optional(z.string().check(z.meta({ description: 'a phone change’s new number, its last 4 digits' }))),
  device_key: z.optional(z.string().check(z.meta({ description: 'a device removal’s device' }))),
});

export type ListedPendingChange = z.output<typeof listedPendingChange>;

/** The list a profile, an export, a login answer and the back office's view show. */
export const pendingChangesField = () =>
  z.array(listedPendingChange).check(
    z.meta({
      description:
        'Changes asked for from a session an SMS code alone could have opened: each waits PHONE_CHANGE_HOLD_HOURS, and any ' +
        'session of the user may cancel it (POST /wallet/v3/user/changes/cancel)',
    }),
  );

/**
 * Whether a change still waits at `now`: running, and (but for a phone change, which completes at a
 * login to the new number within its 7 days) not yet due. A PIN or device change that is due has
 * taken effect: its next use applies it.
 */
export function stillWaits(change: PendingChange | undefined, now: number): boolean {
  return isRunning(change, now) && (change.kind === 'phone' || change.effective_at > now);
}

/** A change as listed. */
export function listedChange(change: PendingChange): ListedPendingChange {
  return {
    change_id: change.change_id,
    kind: change.kind,
    effective_at: change.effective_at,
    via: change.via,
    ...(change.kind === 'phone' ? { phone_last4: change.phone_number.slice(-4) } : {}),
    ...(change.kind === 'device_remove' ? { device_key: change.device_key } : {}),
  };
}

/** The changes that wait, soonest first. */
export function waitingChanges(changes: PendingChange[], now: number): ListedPendingChange[] {
  return changes
    .filter((change) => stillWaits(change, now))
    .sort((a, b) => a.effective_at - b.effective_at)
    .map(listedChange);
}

/** The change of a kind that waits, if any. */
export function waitingOfKind<Kind extends PendingChangeKind>(
  changes: PendingChange[],
  kind: Kind,
  now: number,
): Extract<PendingChange, { kind: Kind }> | undefined {
  return changes.find((change) => change.kind === kind && stillWaits(change, now)) as Extract<PendingChange, { kind: Kind }> | undefined;
}

export type { PendingPhoneChange };
