import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo-client.js';
import { emailClaimKey, phoneClaimKey, userKey, type ItemKey } from './keys.js';
import type { TransactItem } from './transactions.js';

export interface UserRecord {
  user_id: string;
  company_id: string;
  user_type: number;
  dial_code: string;
  phone_number: string;
  phone_e164: string;
  first_name: string;
  last_name: string;
  email?: string | undefined;
  account_number_prefix?: string | undefined;
  password_hash: string;
  login_pin_hash: string;
  transaction_pin_hash: string;
  status_id: number;
  birth_date?: number | undefined;
  image?: string | undefined;
  kyc_status: number;
  country_id?: string | undefined;
  kyc_process_status: number;
  location_point?: { lat: number; lng: number } | undefined;
  device_type?: number | undefined;
  device_id?: string | undefined;
  device_unique_id?: string | undefined;
  parent_user_id?: string | undefined;
  /** The user whose referral code this user signed up with. */
  referred_by?: string | undefined;
  referral_code: string;
  referral_count: number;
  cretaed_by: string;
  created_at: number;
  updated_at: number;
}

const putIfAbsent = (key: ItemKey, attributes: object): TransactItem => ({
  Put: { TableName: tableName, Item: { ...key, ...attributes }, ConditionExpression: 'attribute_not_exists(pk)' },
});

export function userPut(user: UserRecord): TransactItem {
  return putIfAbsent(userKey(user.company_id, user.user_id), user);
}

/** Claims (phone, user type) for a user: fails when someone already holds it. */
export function phoneClaimPut(companyId: string, phoneE164: string, userType: number, userId: string): TransactItem {
  return putIfAbsent(phoneClaimKey(companyId, phoneE164, userType), { user_id: userId });
}

/** Claims (email, user type) for a user: fails when someone already holds it. */
export function emailClaimPut(companyId: string, email: string, userType: number, userId: string): TransactItem {
  return putIfAbsent(emailClaimKey(companyId, email, userType), { user_id: userId });
}

export function userExistsCheck(companyId: string, userId: string): TransactItem {
  return {
    ConditionCheck: { TableName: tableName, Key: userKey(companyId, userId), ConditionExpression: 'attribute_exists(pk)' },
  };
}

/** An atomic +1 on a user's referral count; fails if the user does not exist. */
export function referralCountIncrement(companyId: string, userId: string, nowSeconds: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: userKey(companyId, userId),
      UpdateExpression: 'ADD referral_count :one SET updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds },
    },
  };
}

export async function getUser(companyId: string, userId: string): Promise<UserRecord | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: userKey(companyId, userId) }));
  return Item as UserRecord | undefined;
}

/** The id of the user holding (phone, user type), if any. */
export async function getPhoneOwner(companyId: string, phoneE164: string, userType: number): Promise<string | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: phoneClaimKey(companyId, phoneE164, userType), ProjectionExpression: 'user_id' }),
  );
  return Item?.user_id as string | undefined;
}
