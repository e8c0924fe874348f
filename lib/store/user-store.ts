import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { emailClaimKey, phoneClaimKey, userKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

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

export function userPut(table: Table, user: UserRecord): TransactItem {
  return putIfAbsent(table, userKey(user.company_id, user.user_id), user);
}

/** Claims (phone, user type) for a user: fails when someone already holds it. */
export function phoneClaimPut(table: Table, companyId: string, phoneE164: string, userType: number, userId: string): TransactItem {
  return putIfAbsent(table, phoneClaimKey(companyId, phoneE164, userType), { user_id: userId });
}

/** Claims (email, user type) for a user: fails when someone already holds it. */
export function emailClaimPut(table: Table, companyId: string, email: string, userType: number, userId: string): TransactItem {
  return putIfAbsent(table, emailClaimKey(companyId, email, userType), { user_id: userId });
}

export function userExistsCheck(table: Table, companyId: string, userId: string): TransactItem {
  return {
    ConditionCheck: { TableName: table.name, Key: userKey(companyId, userId), ConditionExpression: 'attribute_exists(pk)' },
  };
}

/** An atomic +1 on a user's referral count; fails if the user does not exist. */
export function referralCountIncrement(table: Table, companyId: string, userId: string, nowSeconds: number): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: 'ADD referral_count :one SET updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds },
    },
  };
}

export async function getUser(table: Table, companyId: string, userId: string): Promise<UserRecord | undefined> {
  const { Item } = await table.client.send(new GetCommand({ TableName: table.name, Key: userKey(companyId, userId) }));
  return Item as UserRecord | undefined;
}

/** The id of the user holding (phone, user type), if any. */
export async function getPhoneOwner(table: Table, companyId: string, phoneE164: string, userType: number): Promise<string | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: phoneClaimKey(companyId, phoneE164, userType), ProjectionExpression: 'user_id' }),
  );
  return Item?.user_id as string | undefined;
}
