import type { App } from '../app-context.js';
import { type CursorScope, decodeCursor, encodeCursor } from '../paging/list-cursor.js';
import { getUnreadCount, queryNotifications } from '../store/notification-store.js';
import { LISTED_NOTIFICATION_FIELDS, type ListedNotification } from './listed-notification.js';
import type { NotificationsCall } from './notifications-input.js';
import type { NotificationsResult } from './notifications-result.js';

/** A page of the caller's notifications of every type, newest first, with the unread count (contract 3.9). */
export async function notifications(app: App, { query, principal }: NotificationsCall): Promise<NotificationsResult> {
  const { companyId, userId } = principal;
  const unreadOnly = query.unread === 1;
  const scope: CursorScope = { list: unreadOnly ? 'unread notifications' : 'notifications', companyId, userId };
  const afterSortKey = query.cursor ? await decodeCursor(app.keys, scope, query.cursor) : undefined;

  // The page and the count are independent reads: made side by side.
  const [page, unreadCount] = await Promise.all([
    queryNotifications(app.table, companyId, userId, {
      fields: LISTED_NOTIFICATION_FIELDS,
      limit: query.limit,
      afterSortKey,
      filter: { unreadOnly },
    }),
    getUnreadCount(app.table, companyId, userId),
  ]);
  return {
    notification: page.notifications as ListedNotification[],
    unread_count: unreadCount,
    next_cursor: page.lastSortKey ? await encodeCursor(app.keys, scope, page.lastSortKey) : null,
  };
}
