import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo-client.js';
import { notificationKey, referralCodeKey } from './keys.js';
import type { TransactItem } from './transactions.js';

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
