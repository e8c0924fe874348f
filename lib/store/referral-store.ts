import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { REFERRAL_COUNT_PREFIX, referralCodeKey, referralCountKey, USER_SORT_KEY, userKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';
import type { UserRecord } from './user-store.js';

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

/**
 * One more referral on a shard of the referrer's count, for the registration's transaction. No
 * condition: the referrer was found by their code, and users are never deleted. The referrer's
 * own item is not touched, so a busy referrer's sign-ups do not cancel each other there.
 */
export function referralCountAdd(table: Table, companyId: string, referrerId: string, shard: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: referralCountKey(companyId, referrerId, shard),
      UpdateExpression: 'ADD referral_count :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/**
 * The referral count of a user's item and of their count shards: the sum of every shard, plus
 * what the user item itself holds (counted there before the shards).
 */
export function referralCountIn(items: { sk: string; referral_count?: unknown }[]): number {
  return items
    .filter((item) => item.sk === USER_SORT_KEY || item.sk.startsWith(REFERRAL_COUNT_PREFIX))
    .reduce((sum, item) => sum + Number(item.referral_count ?? 0), 0);
}

/** A user and their referral count, from one Query: the user's item and the shards that sort after it. */
export async function getUserWithReferralCount(
  table: Table,
  companyId: string,
  userId: string,
): Promise<{ user: UserRecord; referralCount: number } | undefined> {
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :profile)',
      ExpressionAttributeValues: { ':pk': userKey(companyId, userId).pk, ':profile': USER_SORT_KEY },
    }),
  );
  const user = Items.find((item) => item.sk === USER_SORT_KEY) as UserRecord | undefined;
  return user && { user, referralCount: referralCountIn(Items as { sk: string }[]) };
}
