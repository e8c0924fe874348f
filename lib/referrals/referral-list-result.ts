import * as z from 'zod';

/** One notification as listed: exactly the fields of the seed's section 2.4. */
export const listedNotification = z.object({
  id: z.string(),
  user_id: z.string(),
  is_read: z.int().meta({ description: '0 unread, 1 read' }),
  notification_title: z.string(),
  notification_body: z.string(),
  notification_type: z.int().meta({ description: '1 referral' }),
  notification_event_type: z.int().meta({ description: '1 a referred user signed up' }),
  created_date: z.int().meta({ description: 'UNIX seconds' }),
  updated_date: z.int().meta({ description: 'UNIX seconds' }),
});

export const referralListResult = z.object({
  notification: z.array(listedNotification).meta({ description: 'Newest first' }),
  referral_code: z.string(),
  referral_count: z.int().meta({ description: 'Users who signed up with this code' }),
  next_cursor: z.string().nullable().meta({ description: 'Pass back as `cursor` for the next page; null on the last page' }),
});

export type ReferralListResult = z.output<typeof referralListResult>;
