import type { SessionEndReason } from '../store/session-store.js';

// The events the rest of the wallet can act on (API contract 3.13): what each one's `detail`
// holds. Never a personal value, a token, a code, a PIN or a hash: ids, names of fields, reasons
// and times only. docs/events.md gives each as a JSON Schema, which a test checks against these.

/** The `source` of every event this service puts on the bus. */
export const EVENT_SOURCE = 'wallet.auth';

/** Every event's detail holds these. */
export interface EventBase {
  /** Unique per change: the same change published twice has the same id, so a subscriber drops the second. */
  event_id: string;
  company_id: string;
  user_id: string;
  /** UNIX milliseconds of the change. */
  occurred_at: number;
}

/** The fields each detail-type adds to the base. */
export interface EventFields {
  'user.registered': Record<string, never>;
  /** The names of the fields that changed, never their values. */
  'user.profile_updated': { changed: string[] };
  'user.phone_changed': Record<string, never>;
  'user.disabled': Record<string, never>;
  /** A disabled user made active again by the back office (API contract 3.14). */
  'user.enabled': Record<string, never>;
  /** UNIX seconds from which the account may be erased, as the deletion answered. */
  'user.deleted': { erase_after: number };
  'user.restored': Record<string, never>;
  'user.erased': Record<string, never>;
  /** `settled` 0: bound by an OTP login, on probation (API contract 3.15); 1: settled at once (registration, the operator). */
  'device.added': { settled: 0 | 1 };
  'device.removed': Record<string, never>;
  /** `sid` is the access token's claim: a verifier refuses that session's tokens from now on. */
  'session.ended': { sid: string; reason: SessionEndReason };
  'pin.locked': { pin_type: 'login' | 'transaction' };
  /** A back-office search, view or action (API contract 3.14): who and what; the reason never leaves the record. */
  'admin.action': { actor_id: string; action: string; seq: number; record_hash: string };
  /** A phone change that waits until `effective_at` (UNIX seconds); `via` who asked: the user, or support (3.14). */
  'user.phone_change_pending': { change_id: string; effective_at: number; via: 'user' | 'support' };
  /** A pending change cancelled, replaced by a newer one, or void (its number taken meanwhile). */
  'user.phone_change_cancelled': { change_id: string };
  /** A security change that waits until `effective_at` (API contract 3.15): a new PIN, number or device removal; `via` who asked. */
  'user.change_pending': { change_id: string; kind: string; effective_at: number; via: 'user' | 'support' };
  /**
   * A pending change of any kind ended before it took effect: `reason` cancelled (the user or support),
   * replaced (a newer request of its kind), void, pin_proven (a held PIN reset undone by the right
   * PIN on a settled device), not_me or support_freeze.
   */
  'user.change_cancelled': { change_id: string; kind: string; reason: string };
  /** A passkey registered (API contract 3.16). */
  'passkey.added': { passkey_id: string };
  /** A passkey removed: by the user, by staff, by not_me, by a recovery's completion or the account's erasure. */
  'passkey.removed': { passkey_id: string };
  /** An assertion whose signature counter went back: the authenticator was cloned; the login was refused. */
  'passkey.cloned': { passkey_id: string };
}

export type EventType = keyof EventFields;

export const EVENT_TYPES = [
  'user.registered',
  'user.profile_updated',
  'user.phone_changed',
  'user.disabled',
  'user.deleted',
  'user.restored',
  'user.erased',
  'device.added',
  'device.removed',
  'session.ended',
  'pin.locked',
  'admin.action',
  'user.phone_change_pending',
  'user.phone_change_cancelled',
  'user.enabled',
  'user.change_pending',
  'user.change_cancelled',
  'passkey.added',
  'passkey.removed',
  'passkey.cloned',
] as const satisfies readonly EventType[];

/** One event as the publisher puts it: its detail-type and detail. */
export type WalletEvent = {
  [Type in EventType]: {
    type: Type;
    // admin.action names a user only when the action did (a search that found nobody names none).
    detail: (Type extends 'admin.action' ? Omit<EventBase, 'user_id'> & { user_id?: string } : EventBase) & EventFields[Type];
  };
}[EventType];
