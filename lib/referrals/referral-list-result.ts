import * as z from 'zod/mini';

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

export const referralListResult = z.object({
  notification: z.array(listedNotification).check(z.meta({ description: 'Newest first' })),
  referral_code: z.string(),
  referral_count: z.int().check(z.meta({ description: 'Users who signed up with this code' })),
  next_cursor: z.nullable(z.string()).check(z.meta({ description: 'Pass back as `cursor` for the next page; null on the last page' })),
});

export type ReferralListResult = z.output<typeof referralListResult>;
