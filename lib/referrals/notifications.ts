import * as z from 'zod/mini';
import { newId } from '../ids.js';

// A referral notification: the record of the seed's section 2.4. The schema is the one list of
// its fields: the API document, the listing's projection and the types all come from it.

const NotificationType = { REFERRAL: 1 } as const;
const NotificationEventType = { REFERRED_USER_SIGNED_UP: 1 } as const;

/** One notification as listed: exactly the fields of the seed's section 2.4. */
export const listedNotification = z.object({
  id: z.string(),
  user_id: z.string(),
  is_read: z.int().check(z.meta({ description: '0 unread, 1 read' })),
  notification_title: z.string(),
  notification_body: z.string(),
  notification_type: z.int().check(z.meta({ description: '1 referral' })),
  notification_event_type: z.int().check(z.meta({ description: '1 a referred user signed up' })),
  created_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
  updated_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
});

export type ListedNotification = z.output<typeof listedNotification>;

export const LISTED_NOTIFICATION_FIELDS = Object.keys(listedNotification.shape) as (keyof ListedNotification)[];

export interface NotificationRecord extends ListedNotification {
  /** The user whose sign-up this notification reports; kept for support, never listed. */
  referred_user_id: string;
}

/** The notification a referrer receives when someone signs up with their code. */
export function referredSignUpNotification(
  referrerId: string,
  referredUserId: string,
  referredFirstName: string,
  createdAtMs: number,
): NotificationRecord {
  const seconds = Math.floor(createdAtMs / 1000);
  return {
    id: newId(),
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
