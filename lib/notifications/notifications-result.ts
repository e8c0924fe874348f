import * as z from 'zod/mini';
import { listedNotification } from './listed-notification.js';

export const notificationsResult = z.object({
  notification: z.array(listedNotification).check(z.meta({ description: 'Newest first' })),
  unread_count: z.int().check(z.meta({ description: "How many of the user's notifications are unread, whatever the page holds" })),
  next_cursor: z.nullable(z.string()).check(z.meta({ description: 'Pass back as `cursor` for the next page; null on the last page' })),
});

export type NotificationsResult = z.output<typeof notificationsResult>;
