import { NotificationEvent, type NotificationRecord, NotificationType, newNotificationId } from './notification-record.js';

export interface ReferralNotification extends NotificationRecord {
  /** The user whose sign-up this notification reports; kept for support, never listed. */
  referred_user_id: string;
}

/** The notification a referrer receives when someone signs up with their code (API contract 3.4). */
export function referredSignUpNotification(
  referrerId: string,
  referredUserId: string,
  referredFirstName: string,
  createdAtMs: number,
): ReferralNotification {
  const seconds = Math.floor(createdAtMs / 1000);
  return {
    id: newNotificationId(createdAtMs),
    user_id: referrerId,
    is_read: 0,
    notification_title: 'New referral',
    notification_body: `${referredFirstName} signed up with your referral code.`,
    notification_type: NotificationType.REFERRAL,
    notification_event_type: NotificationEvent.REFERRED_USER_SIGNED_UP,
    created_date: seconds,
    updated_date: seconds,
    referred_user_id: referredUserId,
  };
}
