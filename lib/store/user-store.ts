import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { counterStillIs } from './conditional-write.js';
import { emailClaimKey, type ItemKey, phoneClaimKey, userKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';
import { UserStatus } from './user-status.js';

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
  /** 1 once the user proved the phone (a type-2 proof at sign-up, an OTP login, a type-2 code with their token). */
  phone_verified: 0 | 1;
  /** How many sessions the user was ever granted: lets a change that ends them all see one granted meanwhile. */
  session_version: number;
  /** Profile changes written (userProfileChange); absent: none yet. */
  profile_version?: number | undefined;
  /** Devices bound (API contract 3.6), kept by the writes that bind and remove them; absent: none. */
  device_count?: number | undefined;
  /** Changes and resets of each PIN: a PIN login compared against an older one is refused its session. Absent: 0. */
  login_pin_version?: number | undefined;
  /** A PIN an employee set at a registration for the user (contract 3.15): the user sets their own before it is used (needs pin_setup). */
  login_pin_to_set?: 1 | undefined;
  transaction_pin_to_set?: 1 | undefined;
  transaction_pin_version?: number | undefined;
  /** The latest strong login (a PIN login on a settled device, a passkey): it holds devices still on probation (contract 3.15). */
  strong_login_at?: number | undefined;
  /** The latest right login PIN: devices bound after it count on the day's cap of wrong PINs (contract 3.15). */
  login_pin_right_at?: number | undefined;
  cretaed_by: string;
  created_at: number;
  updated_at: number;
}

export function userPut(table: Table, user: UserRecord): TransactItem {
  return putIfAbsent(table, userKey(user.company_id, user.user_id), user);
}

/**
 * The claim on (phone, user type): who holds it and that user's status, kept beside it so a login
 * code can be refused to a user who is not active without reading the user. Claims written
 * before status was kept on them have none: active.
 */
interface PhoneClaim {
  user_id: string;
  status_id?: number | undefined;
  /** The Idempotency-Key record of the request that registered the user, when it had one. */
  registered_by_request?: string | undefined;
  /** Epoch seconds until which that request's retry is answered the user's session (CREDENTIAL_REPLAY_SECONDS). */
  registered_by_request_until?: number | undefined;
}

/** The request that registers a user, and until when (epoch seconds) its retry may be answered a session of theirs. */
export interface RegisteringRequest {
  ref: string;
  until: number;
}

/** Claims (phone, user type) for a user: fails when someone already holds it. */
export function phoneClaimPut(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  userId: string,
  statusId: number,
  request?: RegisteringRequest,
): TransactItem {
  return putIfAbsent(table, phoneClaimKey(companyId, phoneE164, userType), {
    user_id: userId,
    status_id: statusId,
    registered_by_request: request?.ref,
    registered_by_request_until: request?.until,
  });
}

/** Keeps the user's status on their phone claim, only while they hold it. */
export function phoneClaimStatus(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  userId: string,
  statusId: number,
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: phoneClaimKey(companyId, phoneE164, userType),
      UpdateExpression: 'SET status_id = :status',
      ConditionExpression: 'user_id = :user',
      ExpressionAttributeValues: { ':status': statusId, ':user': userId },
    },
  };
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

export async function getUser(table: Table, companyId: string, userId: string, consistent = false): Promise<UserRecord | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: userKey(companyId, userId), ConsistentRead: consistent }),
  );
  return Item as UserRecord | undefined;
}

/** The profile fields a user may change themselves (API contract 3.11). */
export type ProfileChanges = Partial<Pick<UserRecord, 'first_name' | 'last_name' | 'email' | 'image' | 'birth_date' | 'location_point'>>;

/**
 * A user's own change to their profile, only while they are active and their email is still the one
 * read (`seen.email`; undefined: none): a change racing another one of the same user is read again,
 * so the email claims the transaction moves always match the record. A change that moves the email
 * claim (`movesClaim`) counts in session_version, so a deletion or a disable that read the user
 * before it is refused and reads again, and never leaves the new claim held. Every change counts in
 * profile_version and is written only over the version read (`seen`), so a copy of it that lands
 * late, after a newer change, is refused instead of putting the older values back.
 */
export function userProfileChange(
  table: Table,
  companyId: string,
  userId: string,
  changes: ProfileChanges,
  seen: Pick<UserRecord, 'email' | 'profile_version'>,
  nowSeconds: number,
  movesClaim = false,
): TransactItem {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  const names = Object.fromEntries(entries.map(([name], index) => [`#f${index}`, name]));
  const values: Record<string, unknown> = Object.fromEntries(entries.map(([, value], index) => [`:f${index}`, value]));
  values[':now'] = nowSeconds;
  values[':active'] = UserStatus.ACTIVE;
  values[':one'] = 1;
  values[':seenProfile'] = seen.profile_version ?? 0;
  if (seen.email !== undefined) values[':seenEmail'] = seen.email;
  const emailAsRead = seen.email === undefined ? 'attribute_not_exists(email)' : 'email = :seenEmail';
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: `SET ${[...entries.map((_, index) => `#f${index} = :f${index}`), 'updated_at = :now'].join(', ')} ADD profile_version :one${movesClaim ? ', session_version :one' : ''}`,
      ConditionExpression: `attribute_exists(pk) AND status_id = :active AND ${emailAsRead} AND ${counterStillIs('profile_version', ':seenProfile', seen.profile_version ?? 0)}`,
      ...(entries.length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Sets a user's status, only if no session was granted since `sessionVersion` was read (end-sessions.ts)
 * and, given `fromStatus`, only from that status (the back office's disable and enable, API contract 3.14).
 */
export function userStatusChange(
  table: Table,
  companyId: string,
  userId: string,
  statusId: number,
  sessionVersion: number,
  nowSeconds: number,
  fromStatus?: number,
): TransactItem {
  // Users from before session counting have none: for them, version 0 means "still none".
  const conditions = ['attribute_exists(pk)', counterStillIs('session_version', ':version', sessionVersion)];
  const values: Record<string, unknown> = { ':status': statusId, ':now': nowSeconds, ':version': sessionVersion };
  if (fromStatus !== undefined) {
    conditions.push('status_id = :from');
    values[':from'] = fromStatus;
  }
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: 'SET status_id = :status, updated_at = :now',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
    },
  };
}

/** The user is there and no session was granted since `sessionVersion` was read: a check for a transaction that ends them all. */
export function userSessionsUnchanged(table: Table, companyId: string, userId: string, sessionVersion: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      ConditionExpression: `attribute_exists(pk) AND ${counterStillIs('session_version', ':version', sessionVersion)}`,
      ExpressionAttributeValues: { ':version': sessionVersion },
    },
  };
}

/**
 * The held-but-unproven owner of a phone gives it up (PHONE_RECLAIMED), only while still active (an
 * operator's disable is never overwritten), still unverified, and with no session granted since read.
 */
export function userPhoneReclaimed(
  table: Table,
  companyId: string,
  userId: string,
  sessionVersion: number,
  nowSeconds: number,
): TransactItem {
  const update = userStatusChange(table, companyId, userId, UserStatus.PHONE_RECLAIMED, sessionVersion, nowSeconds).Update!;
  return {
    Update: {
      ...update,
      ConditionExpression: `${update.ConditionExpression} AND status_id = :active AND (attribute_not_exists(phone_verified) OR phone_verified <> :one)`,
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':one': 1, ':active': UserStatus.ACTIVE },
    },
  };
}

/**
 * Moves the claim on (phone, user type) from one user to another, only if the first still holds
 * it; the claim carries its new holder's own status (a user registered disabled gets no login SMS)
 * and, for a registration, the request that took it over, as phoneClaimPut's.
 */
export function phoneClaimMove(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  to: { userId: string; statusId: number },
  fromUserId: string,
  request?: RegisteringRequest,
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: {
        ...phoneClaimKey(companyId, phoneE164, userType),
        user_id: to.userId,
        status_id: to.statusId,
        registered_by_request: request?.ref,
        registered_by_request_until: request?.until,
      },
      ConditionExpression: 'user_id = :from',
      ExpressionAttributeValues: { ':from': fromUserId },
    },
  };
}

/** Claims (email, user type) for a user when it is free or held by the user it is taken from. */
export function emailClaimTake(
  table: Table,
  companyId: string,
  email: string,
  userType: number,
  toUserId: string,
  fromUserId: string,
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...emailClaimKey(companyId, email, userType), user_id: toUserId },
      ConditionExpression: 'attribute_not_exists(pk) OR user_id = :from',
      ExpressionAttributeValues: { ':from': fromUserId },
    },
  };
}

/** Gives up a claim (a phone's, an email's, a referral code's), only if that user still holds it: free for anyone at once. */
export function claimRelease(table: Table, key: ItemKey, fromUserId: string): TransactItem {
  return {
    Delete: { TableName: table.name, Key: key, ConditionExpression: 'user_id = :from', ExpressionAttributeValues: { ':from': fromUserId } },
  };
}

/** Gives up a user's claim on (email, user type), only if that user still holds it. */
export function emailClaimRelease(table: Table, companyId: string, email: string, userType: number, fromUserId: string): TransactItem {
  return claimRelease(table, emailClaimKey(companyId, email, userType), fromUserId);
}

/** Gives up a user's claim on (phone, user type), only if that user still holds it. */
export function phoneClaimRelease(table: Table, companyId: string, phoneE164: string, userType: number, fromUserId: string): TransactItem {
  return claimRelease(table, phoneClaimKey(companyId, phoneE164, userType), fromUserId);
}

/** Records that a user proved their phone. */
export async function markPhoneVerified(table: Table, companyId: string, userId: string): Promise<void> {
  await table.client.send(
    new UpdateCommand({
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: 'SET phone_verified = :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
}

/** The claim on (phone, user type), if anyone holds it. */
export async function getPhoneClaim(
  table: Table,
  companyId: string,
  phoneE164: string,
  userType: number,
  consistent = false,
): Promise<PhoneClaim | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({
      TableName: table.name,
      Key: phoneClaimKey(companyId, phoneE164, userType),
      ProjectionExpression: 'user_id, status_id, registered_by_request, registered_by_request_until',
      ConsistentRead: consistent,
    }),
  );
  return Item as PhoneClaim | undefined;
}

/** Who holds the claim on (email, user type), if anyone: the user's id. */
export async function getEmailClaimHolder(table: Table, companyId: string, email: string, userType: number): Promise<string | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: emailClaimKey(companyId, email, userType), ProjectionExpression: 'user_id' }),
  );
  return Item?.user_id as string | undefined;
}
