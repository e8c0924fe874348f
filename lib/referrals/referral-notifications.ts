import { randomBytes } from 'node:crypto';
import type { NotificationRecord } from '../store/referral-store.js';

export const NotificationType = { REFERRAL: 1 } as const;
export const NotificationEventType = { REFERRED_USER_SIGNED_UP: 1 } as const;

/** The notification a referrer receives when someone signs up with their code. */
export function referredSignUpNotification(
  referrerId: string,
  referredUserId: string,
  referredFirstName: string,
  createdAtMs: number,
): NotificationRecord {
  const seconds = Math.floor(createdAtMs / 1000);
  return {
    id: randomBytes(16).toString('hex'),
    user_id: referrerId,
    is_read: 0,
    notification_title: 'New referral',
    notification_body: `${referredFirstName} signed up with your referral code.`,
    notification_type: NotificationType.REFERRAL,
    notification_event_type: NotificationEventType.REFERRED_USER_SIGNED_UP,
    created_date: seconds,
    updated_date: seconds,
    referred_user_id: referredUserId,
  };
}
