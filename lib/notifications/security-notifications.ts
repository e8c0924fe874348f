import { notificationWrites } from '../store/notification-store.js';
import type { Table } from '../store/table.js';
import type { TransactItem } from '../store/transactions.js';
import { NotificationEvent, type NotificationRecord, NotificationType, newNotificationId } from './notification-record.js';

// Security notices (API contract 3.7 and 3.9, ASVS 5.0): the user is told in their own list when
// their authentication changes. They never hold a PIN, key, code or token: only what happened and when.

export const SecurityEvent = {
  NEW_DEVICE: NotificationEvent.NEW_DEVICE,
  PIN_CHANGED: NotificationEvent.PIN_CHANGED,
  PIN_RESET: NotificationEvent.PIN_RESET,
  PIN_LOCKED: NotificationEvent.PIN_LOCKED,
  PHONE_CHANGED: NotificationEvent.PHONE_CHANGED,
  REFRESH_TOKEN_REUSED: NotificationEvent.REFRESH_TOKEN_REUSED,
  CHANGED_BY_SUPPORT: NotificationEvent.CHANGED_BY_SUPPORT,
  PHONE_CHANGE_PENDING: NotificationEvent.PHONE_CHANGE_PENDING,
  PHONE_CHANGE_CANCELLED: NotificationEvent.PHONE_CHANGE_CANCELLED,
  CHANGE_PENDING: NotificationEvent.CHANGE_PENDING,
  SECURED_BY_YOU: NotificationEvent.SECURED_BY_YOU,
  PASSKEY_ADDED: NotificationEvent.PASSKEY_ADDED,
  PASSKEY_REMOVED: NotificationEvent.PASSKEY_REMOVED,
} as const;
export type SecurityEvent = (typeof SecurityEvent)[keyof typeof SecurityEvent];

const PIN_NAMES = { login: 'login PIN', transaction: 'transaction PIN' } as const;

/** What a cancelled pending change of a kind tells (round 6: every kind is cancelled with notice 10). */
function cancelledTexts(kind: string | undefined, pin: string): { title: string; body: string } {
  if (kind === 'login_pin' || kind === 'transaction_pin') {
    return { title: 'PIN change cancelled', body: `The new ${pin} that was waiting was cancelled: your ${pin} stays as it was.` };
  }
  if (kind === 'device_remove')
    return { title: 'Device removal cancelled', body: 'The removal of a device that was waiting was cancelled.' };
  if (kind === undefined || kind === 'phone') {
    return { title: 'Phone number change cancelled', body: 'The move of your account to a new phone number was cancelled.' };
  }
  return { title: 'Change cancelled', body: 'A change of your account that was waiting was cancelled.' };
}

function texts(
  event: SecurityEvent,
  pinType: keyof typeof PIN_NAMES | undefined,
  kind: string | undefined,
): { title: string; body: string } {
  const pin = PIN_NAMES[pinType ?? 'login'];
  switch (event) {
    case SecurityEvent.NEW_DEVICE:
      return {
        title: 'New device',
        body: 'A new device can now sign in to your account. If this was not you, remove it and reset your PIN.',
      };
    case SecurityEvent.PIN_CHANGED:
      return { title: 'PIN changed', body: `Your ${pin} was changed. Your other sessions were signed out.` };
    case SecurityEvent.PIN_RESET:
      return { title: 'PIN reset', body: `Your ${pin} was reset. Your other sessions were signed out.` };
    case SecurityEvent.PIN_LOCKED:
      return { title: 'PIN locked', body: `Your ${pin} is locked after too many wrong tries. Reset it to use it again.` };
    case SecurityEvent.PHONE_CHANGED:
      return {
        title: 'Phone number changed',
        body: 'Your account moved to a new phone number. Your other sessions were signed out. If this was not you, contact support at once.',
      };
    case SecurityEvent.PHONE_CHANGE_PENDING:
      return {
        title: 'Phone number change requested',
        body: 'A move of your account to a new phone number was asked for. It happens after a waiting time unless you cancel it. If this was not you, cancel it in the app at once and contact support.',
      };
    case SecurityEvent.PHONE_CHANGE_CANCELLED:
      return cancelledTexts(kind, pin);
    case SecurityEvent.CHANGE_PENDING:
      return {
        title: 'Security change requested',
        body: 'A change of your PIN, phone number or devices was asked for from a sign-in by SMS code. It happens after a waiting time unless you cancel it. If this was not you, open the app on your usual phone and choose "Not me".',
      };
    case SecurityEvent.SECURED_BY_YOU:
      return {
        title: 'Account secured',
        body: 'You chose "Not me": every change that was waiting was cancelled, every other sign-in ended and new devices removed.',
      };
    case SecurityEvent.PASSKEY_ADDED:
      return {
        title: 'Passkey added',
        body: 'A passkey can now sign in to your account without a code. If this was not you, remove it and choose "Not me".',
      };
    case SecurityEvent.PASSKEY_REMOVED:
      return { title: 'Passkey removed', body: 'A passkey was removed from your account, and its sign-ins ended.' };
    case SecurityEvent.CHANGED_BY_SUPPORT:
      return {
        title: 'Changed by support',
        body: 'Our support team acted on your account, as you asked or to protect it. If you did not contact us, contact support at once.',
      };
    case SecurityEvent.REFRESH_TOKEN_REUSED:
      return {
        title: 'Signed out for your safety',
        body: 'A sign-in of yours was used from two places at once, so it was ended. Log in again; if this keeps happening, change your PIN.',
      };
  }
}

/** The writes that put a security notice in a user's list, for the same transaction as the change it reports. */
export function securityNotificationWrites(
  table: Table,
  companyId: string,
  userId: string,
  /** unreadShard: the unread count's shard, when one transaction adds more than one notice (distinctUnreadShards). */
  notice: {
    event: SecurityEvent;
    pinType?: keyof typeof PIN_NAMES;
    /** A pending change's kind (lib/store/pending-change-store.ts), for the notices of one cancelled. */
    changeKind?: string;
    nowMs: number;
    unreadShard?: number | undefined;
  },
): TransactItem[] {
  const seconds = Math.floor(notice.nowMs / 1000);
  const { title, body } = texts(notice.event, notice.pinType, notice.changeKind);
  const notification: NotificationRecord = {
    id: newNotificationId(notice.nowMs),
    user_id: userId,
    is_read: 0,
    notification_title: title,
    notification_body: body,
    notification_type: NotificationType.SECURITY,
    notification_event_type: notice.event,
    created_date: seconds,
    updated_date: seconds,
  };
  return notificationWrites(table, companyId, notification, notice.nowMs, notice.unreadShard);
}
