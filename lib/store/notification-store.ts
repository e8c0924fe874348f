import { randomInt } from 'node:crypto';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { NOTIFICATION_PREFIX, notificationKey, notificationTimeBound, UNREAD_COUNT_PREFIX, unreadCountKey, userKey } from './keys.js';
import type { Table } from './table.js';
import { ConditionsFailed, type TransactItem, writeTransaction } from './transactions.js';

// A user's notifications live in the user's partition, newest last in sort-key order, beside the
// count of the unread ones. Every write that adds or reads one changes the count in the same
// transaction, so it is exact without ever counting on read. The count is kept in shards, each
// write on a random one, so a busy referrer's sign-ups (and reads) meet on one item only by
// chance, as their referral count does (docs/scaling.md); one Query sums them.

/** Shards of a user's unread count. Any number is safe to change to: the read sums what exists. */
const UNREAD_COUNT_SHARDS = 10;

/**
 * Distinct random shards of the unread count, for a transaction that adds several notifications to
 * one user's list: one transaction cannot write one item twice (DynamoDB refuses it as invalid).
 */
export function distinctUnreadShards(count: number): number[] {
  const shards = Array.from({ length: UNREAD_COUNT_SHARDS }, (_, shard) => shard);
  for (let index = shards.length - 1; index > 0; index--) {
    const other = randomInt(index + 1);
    [shards[index], shards[other]] = [shards[other]!, shards[index]!];
  }
  return shards.slice(0, count);
}

/** The write that moves a user's unread count by some amount, on the shard given or a random one. */
function unreadCountAdd(
  table: Table,
  companyId: string,
  userId: string,
  amount: number,
  shard = randomInt(UNREAD_COUNT_SHARDS),
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: unreadCountKey(companyId, userId, shard),
      UpdateExpression: 'ADD unread :amount',
      ExpressionAttributeValues: { ':amount': amount },
    },
  };
}

/** A notification as stored: the listed fields of the seed's 2.4 and whatever else its kind keeps. */
export interface StoredNotification {
  id: string;
  user_id: string;
  is_read: number;
  created_date: number;
  [field: string]: unknown;
}

/**
 * The writes that add an unread notification to its recipient's list, for one transaction with
 * the change it reports: the notification and the recipient's unread count, so the count stays
 * exact however many writes race.
 */
export function notificationWrites(
  table: Table,
  companyId: string,
  notification: StoredNotification,
  createdAtMs: number,
  unreadShard?: number,
): TransactItem[] {
  return [
    {
      Put: {
        TableName: table.name,
        Item: { ...notification, ...notificationKey(companyId, notification.user_id, createdAtMs, notification.id) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    unreadCountAdd(table, companyId, notification.user_id, 1, unreadShard),
  ];
}

/** Which of a user's notifications a list shows: all, one type only, unread ones only. */
export interface NotificationFilter {
  type?: number;
  unreadOnly?: boolean;
}

export interface NotificationPage<Field extends string> {
  notifications: Record<Field, unknown>[];
  /** Sort key of the last listed notification when more follow it, else undefined. */
  lastSortKey: string | undefined;
}

function filterExpression(filter: NotificationFilter): Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeValues'> {
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  if (filter.type !== undefined) {
    conditions.push('notification_type = :type');
    values[':type'] = filter.type;
  }
  if (filter.unreadOnly) {
    conditions.push('is_read = :unread');
    values[':unread'] = 0;
  }
  return conditions.length ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeValues: values } : {};
}

/**
 * A page of a user's notifications, newest first, with only the given fields, from Queries on the
 * user's own partition. One item more than the page is sought, so the last page is known as such
 * without an extra call. A filter applies after Limit, so a filtered Query may come back short:
 * the next one goes on from where it stopped until the page is full or the list ends.
 */
export async function queryNotifications<Field extends string>(
  table: Table,
  companyId: string,
  userId: string,
  page: { fields: readonly Field[]; limit: number; afterSortKey: string | undefined; filter?: NotificationFilter },
): Promise<NotificationPage<Field>> {
  const pk = userKey(companyId, userId).pk;
  const filter = filterExpression(page.filter ?? {});
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined = page.afterSortKey ? { pk, sk: page.afterSortKey } : undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ...filter,
        ExpressionAttributeValues: { ':pk': pk, ':prefix': NOTIFICATION_PREFIX, ...filter.ExpressionAttributeValues },
        ProjectionExpression: ['sk', ...page.fields].join(', '),
        ScanIndexForward: false,
        // A list read right after a marking shows it.
        ConsistentRead: true,
        Limit: page.limit + 1,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    found.push(...Items);
    startKey = LastEvaluatedKey;
  } while (found.length <= page.limit && startKey);
  const listed = found.slice(0, page.limit);
  const notifications = listed.map(
    (item) => Object.fromEntries(page.fields.map((field) => [field, item[field]])) as Record<Field, unknown>,
  );
  return { notifications, lastSortKey: found.length > page.limit ? (listed.at(-1)?.sk as string) : undefined };
}

/** How many of a user's notifications are unread: the sum of the count's shards, read strongly so it follows the caller's own marking. */
export async function getUnreadCount(table: Table, companyId: string, userId: string): Promise<number> {
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': userKey(companyId, userId).pk, ':prefix': UNREAD_COUNT_PREFIX },
      ProjectionExpression: 'unread',
      ConsistentRead: true,
    }),
  );
  return Items.reduce((sum, item) => sum + Number(item.unread ?? 0), 0);
}

/**
 * Pages of a user's unread notifications (sort key and id), created before beforeMs when given,
 * newest first. The filter applies after the read: the walk reads every notification in range.
 */
export async function* unreadNotifications(
  table: Table,
  companyId: string,
  userId: string,
  beforeMs: number | undefined,
): AsyncGenerator<{ sk: string; id: string }[]> {
  const pk = userKey(companyId, userId).pk;
  let startKey: Record<string, unknown> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression:
          beforeMs === undefined ? 'pk = :pk AND begins_with(sk, :first)' : 'pk = :pk AND sk BETWEEN :first AND :last',
        FilterExpression: 'is_read = :unread',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':first': NOTIFICATION_PREFIX,
          ':unread': 0,
          ...(beforeMs === undefined ? {} : { ':last': notificationTimeBound(beforeMs) }),
        },
        ProjectionExpression: 'sk, id',
        ScanIndexForward: false,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    if (Items.length) yield Items as { sk: string; id: string }[];
    startKey = LastEvaluatedKey;
  } while (startKey);
}

/** DynamoDB takes at most 100 items in a transaction: a count shard and 99 notifications. */
export const MARKS_PER_TRANSACTION = 99;

/**
 * Marks some of a user's notifications read (by sort key) and takes them off the unread count, each
 * transaction all or nothing, and answers how many changed. Each notification is marked only if it
 * is unread (so absent, read, or read meanwhile by a concurrent call, it changes nothing): when one
 * is not, the transaction is refused and goes again without it, so the count never moves by one
 * that was not marked.
 */
export async function markNotificationsRead(
  table: Table,
  companyId: string,
  userId: string,
  sortKeys: readonly string[],
  nowSeconds: number,
): Promise<number> {
  const pk = userKey(companyId, userId).pk;
  // A transaction may name an item once.
  const unique = [...new Set(sortKeys)];
  let marked = 0;
  for (let start = 0; start < unique.length; start += MARKS_PER_TRANSACTION) {
    let pending = unique.slice(start, start + MARKS_PER_TRANSACTION);
    while (pending.length) {
      const marks = pending.map((sk) => ({
        label: sk,
        item: {
          Update: {
            TableName: table.name,
            Key: { pk, sk },
            UpdateExpression: 'SET is_read = :read, updated_date = :now',
            ConditionExpression: 'is_read = :unread',
            ExpressionAttributeValues: { ':read': 1, ':unread': 0, ':now': nowSeconds },
          },
        },
      }));
      const uncount = { label: 'unread count', item: unreadCountAdd(table, companyId, userId, -pending.length) };
      try {
        await writeTransaction(table, [...marks, uncount]);
        marked += pending.length;
        break;
      } catch (error) {
        if (!(error instanceof ConditionsFailed)) throw error;
        const refused = new Set(error.labels);
        pending = pending.filter((sk) => !refused.has(sk));
      }
    }
  }
  return marked;
}
