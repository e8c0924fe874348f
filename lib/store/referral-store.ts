import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo-client.js';
import { NOTIFICATION_PREFIX, notificationKey, referralCodeKey, userKey } from './keys.js';
import type { TransactItem } from './transactions.js';

/** The fields of a notification as the API lists it (the seed's section 2.4), nothing more. */
export const LISTED_NOTIFICATION_FIELDS = [
  'id',
  'user_id',
  'is_read',
  'notification_title',
  'notification_body',
  'notification_type',
  'notification_event_type',
  'created_date',
  'updated_date',
] as const;

export type ListedNotification = Pick<NotificationRecord, (typeof LISTED_NOTIFICATION_FIELDS)[number]>;

export interface NotificationRecord {
  id: string;
  user_id: string;
  is_read: number;
  notification_title: string;
  notification_body: string;
  notification_type: number;
  notification_event_type: number;
  /** UNIX seconds. */
  created_date: number;
  updated_date: number;
  /** The user whose sign-up this notification reports; kept for support, never listed. */
  referred_user_id: string;
}

/** Claims a referral code for its owner; fails if the code is taken in this company. */
export function referralCodePut(companyId: string, referralCode: string, ownerId: string): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...referralCodeKey(companyId, referralCode), user_id: ownerId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getReferralCodeOwner(companyId: string, referralCode: string): Promise<string | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: referralCodeKey(companyId, referralCode), ProjectionExpression: 'user_id' }),
  );
  return Item?.user_id as string | undefined;
}

/** Stores a notification in its recipient's partition, ordered by creation time. */
export function notificationPut(companyId: string, notification: NotificationRecord, createdAtMs: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...notificationKey(companyId, notification.user_id, createdAtMs, notification.id), ...notification },
    },
  };
}

export interface NotificationPage {
  notifications: ListedNotification[];
  /** Sort key of the last listed notification when more follow it, else undefined. */
  lastSortKey: string | undefined;
}

/**
 * A page of a user's notifications, newest first, from one Query on the user's own partition.
 * One item more than the page is read, so the last page is known as such without an extra call.
 */
export async function queryNotifications(
  companyId: string,
  userId: string,
  limit: number,
  afterSortKey: string | undefined,
): Promise<NotificationPage> {
  const pk = userKey(companyId, userId).pk;
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': NOTIFICATION_PREFIX },
      ProjectionExpression: ['sk', ...LISTED_NOTIFICATION_FIELDS].join(', '),
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(afterSortKey ? { ExclusiveStartKey: { pk, sk: afterSortKey } } : {}),
    }),
  );
  const page = Items.slice(0, limit);
  const notifications = page.map((item) =>
    Object.fromEntries(LISTED_NOTIFICATION_FIELDS.map((field) => [field, item[field]])),
  ) as ListedNotification[];
  return { notifications, lastSortKey: Items.length > limit ? (page.at(-1)!.sk as string) : undefined };
}
