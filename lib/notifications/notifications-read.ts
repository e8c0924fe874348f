import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { notificationKey } from '../store/keys.js';
import { getUnreadCount, markNotificationsRead, unreadNotifications } from '../store/notification-store.js';
import { createdAtOf } from './notification-record.js';
import type { NotificationsReadCall } from './notifications-read-input.js';
import type { NotificationsReadResult } from './notifications-read-result.js';

/**
 * The sort keys of the caller's notifications with these ids. A timed id names its own key
 * (notification-record.ts); an older random id is looked for among the user's unread notifications,
 * which a walk of the partition finds. An id that is not the user's names a key with nothing there.
 */
async function sortKeysOf(app: App, companyId: string, userId: string, ids: string[]): Promise<string[]> {
  const now = app.clock.now();
  const sortKeys: string[] = [];
  const untimed = new Set<string>();
  for (const id of ids) {
    const createdAtMs = createdAtOf(id, now);
    if (createdAtMs === undefined) untimed.add(id);
    else sortKeys.push(notificationKey(companyId, userId, createdAtMs, id).sk);
  }
  if (untimed.size) {
    for await (const page of unreadNotifications(app.table, companyId, userId, undefined)) {
      sortKeys.push(...page.filter(({ id }) => untimed.has(id)).map(({ sk }) => sk));
    }
  }
  return sortKeys;
}

/**
 * Marks the caller's notifications read (contract 3.9): by id, or every unread one, optionally up to
 * a time. Only unread ones of the caller change, so a repeat changes nothing; the unread count moves
 * with each marking in its transaction and is read afterwards.
 */
export async function notificationsRead(app: App, { body, principal }: NotificationsReadCall): Promise<NotificationsReadResult> {
  const { companyId, userId } = principal;
  const nowSeconds = epochSeconds(app.clock);
  let marked = 0;
  if (body.ids) {
    marked = await markNotificationsRead(app.table, companyId, userId, await sortKeysOf(app, companyId, userId, body.ids), nowSeconds);
  } else {
    // created_date is in seconds: everything created within the second `before` names counts.
    const beforeMs = body.before === undefined ? undefined : (body.before + 1) * 1000;
    for await (const page of unreadNotifications(app.table, companyId, userId, beforeMs)) {
      marked += await markNotificationsRead(
        app.table,
        companyId,
        userId,
        page.map(({ sk }) => sk),
        nowSeconds,
      );
    }
  }
  const unreadCount = await getUnreadCount(app.table, companyId, userId);
  return { message: 'Notifications marked read', marked, unread_count: unreadCount };
}
