import { randomBytes } from 'node:crypto';
import type { ListedNotification } from './listed-notification.js';

// The notification record (the seed's section 2.4, API contract 3.9): its types and events, and its
// id. Every kind of notification is built on these; its listed fields are listed-notification.ts.

export const NotificationType = { REFERRAL: 1, SECURITY: 2 } as const;
export type NotificationType = (typeof NotificationType)[keyof typeof NotificationType];

/** What happened: event 1 belongs to type 1 (referral), events 2 to 10 to type 2 (security). */
export const NotificationEvent = {
  REFERRED_USER_SIGNED_UP: 1,
  NEW_DEVICE: 2,
  PIN_CHANGED: 3,
  PIN_RESET: 4,
  PIN_LOCKED: 5,
  PHONE_CHANGED: 6,
  REFRESH_TOKEN_REUSED: 7,
  /** The back office acted on the account (contract 3.14). */
  CHANGED_BY_SUPPORT: 8,
  PHONE_CHANGE_PENDING: 9,
  /** A pending change cancelled (round 6: of any kind, by the user, a right PIN, not_me or support). */
  PHONE_CHANGE_CANCELLED: 10,
  /** A security change that waits (contract 3.15): a new PIN, the removal of a settled device... */
  CHANGE_PENDING: 11,
  /** The owner's way back (not_me): every pending change cancelled, every other session ended. */
  SECURED_BY_YOU: 12,
  PASSKEY_ADDED: 13,
  PASSKEY_REMOVED: 14,
} as const;
export type NotificationEvent = (typeof NotificationEvent)[keyof typeof NotificationEvent];

/** A notification as stored: the listed fields and whatever else its kind keeps (never listed). */
export interface NotificationRecord extends ListedNotification {
  [field: string]: unknown;
}

// An id is 32 hex characters like every other id: 12 of its creation time in milliseconds, then 80
// random bits. The time leads the sort key (lib/store/keys.ts, notificationKey), so a notification is
// found from its id alone. Ids made before this form are random throughout (see createdAtOf).
const TIME_HEX_DIGITS = 12;

/** A new notification id for a notification created at createdAtMs. */
export function newNotificationId(createdAtMs: number): string {
  return createdAtMs.toString(16).padStart(TIME_HEX_DIGITS, '0') + randomBytes(10).toString('hex');
}

/** Ids of this form were first made after this time (2026-11-23, UTC); none names an earlier one. */
export const TIMED_IDS_SINCE_MS = Date.UTC(2026, 10, 23);

/**
 * The creation time an id carries, or undefined for one that cannot carry it: an older, random id
 * names a time before timed ids began or after now, but for about 1 in 9,000 per year since then.
 */
export function createdAtOf(id: string, nowMs: number): number | undefined {
  const createdAtMs = Number.parseInt(id.slice(0, TIME_HEX_DIGITS), 16);
  return createdAtMs >= TIMED_IDS_SINCE_MS && createdAtMs <= nowMs + 60_000 ? createdAtMs : undefined;
}
