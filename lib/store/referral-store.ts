import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { NOTIFICATION_PREFIX, notificationKey, referralCodeKey, userKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

/** Claims a referral code for its owner; fails if the code is taken in this company. */
export function referralCodePut(table: Table, companyId: string, referralCode: string, ownerId: string): TransactItem {
  return putIfAbsent(table, referralCodeKey(companyId, referralCode), { user_id: ownerId });
}

export async function getReferralCodeOwner(table: Table, companyId: string, referralCode: string): Promise<string | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: referralCodeKey(companyId, referralCode), ProjectionExpression: 'user_id' }),
  );
  return Item?.user_id as string | undefined;
}

/** Stores a notification in its recipient's partition, ordered by creation time. */
export function notificationPut(
  table: Table,
  companyId: string,
  notification: { id: string; user_id: string },
  createdAtMs: number,
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...notification, ...notificationKey(companyId, notification.user_id, createdAtMs, notification.id) },
    },
  };
}

export interface NotificationPage<Field extends string> {
  notifications: Record<Field, unknown>[];
  /** Sort key of the last listed notification when more follow it, else undefined. */
  lastSortKey: string | undefined;
}

/**
 * A page of a user's notifications, newest first, with only the given fields, from one Query on
 * the user's own partition. One item more than the page is read, so the last page is known as
 * such without an extra call.
 */
export async function queryNotifications<Field extends string>(
  table: Table,
  companyId: string,
  userId: string,
  page: { fields: readonly Field[]; limit: number; afterSortKey: string | undefined },
): Promise<NotificationPage<Field>> {
  const pk = userKey(companyId, userId).pk;
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': NOTIFICATION_PREFIX },
      ProjectionExpression: ['sk', ...page.fields].join(', '),
      ScanIndexForward: false,
      Limit: page.limit + 1,
      ...(page.afterSortKey ? { ExclusiveStartKey: { pk, sk: page.afterSortKey } } : {}),
    }),
  );
  const listed = Items.slice(0, page.limit);
  const notifications = listed.map(
    (item) => Object.fromEntries(page.fields.map((field) => [field, item[field]])) as Record<Field, unknown>,
  );
  return { notifications, lastSortKey: Items.length > page.limit ? (listed.at(-1)?.sk as string) : undefined };
}
