import * as z from 'zod/mini';

export const notificationsReadResult = z.object({
  message: z.string(),
  marked: z.int().check(z.meta({ description: 'How many notifications this call changed from unread to read' })),
  unread_count: z.int().check(z.meta({ description: "How many of the user's notifications are unread now" })),
});

export type NotificationsReadResult = z.output<typeof notificationsReadResult>;
