import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { pageQuery } from '../paging/page-query.js';
import { queryInteger } from '../validation.js';

// The notification list's input (API contract 3.9): unread=1 for unread ones only; limit and cursor page.

export const notificationsQuery = z.object({
  unread: z.optional(queryInteger(0, 1).check(z.meta({ description: '1: only unread notifications' }))),
  ...pageQuery,
});

export type NotificationsQuery = z.output<typeof notificationsQuery>;
export type NotificationsCall = Call<Record<string, never>, NotificationsQuery, Principal>;
