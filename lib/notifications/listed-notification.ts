import * as z from 'zod/mini';

// A notification as the listing calls answer it (the seed's section 2.4, API contract 3.9): the
// schema and the one list of its fields. A module of its own, apart from notification-record.ts,
// so a function that writes notifications but lists none neither bundles nor builds it at init.

/** One notification as listed: exactly the fields of the seed's section 2.4. */
export const listedNotification = z.object({
  id: z.string(),
  user_id: z.string(),
  is_read: z.int().check(z.meta({ description: '0 unread, 1 read' })),
  notification_title: z.string(),
  notification_body: z.string(),
  notification_type: z.int().check(z.meta({ description: '1 referral, 2 security' })),
  notification_event_type: z.int().check(
    z.meta({
      description:
        '1 a referred user signed up; 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked, 6 phone changed, 7 refresh token reused, 9 phone change pending, 10 phone change cancelled',
    }),
  ),
  created_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
  updated_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
});

export type ListedNotification = z.output<typeof listedNotification>;

export const LISTED_NOTIFICATION_FIELDS = Object.keys(listedNotification.shape) as (keyof ListedNotification)[];
