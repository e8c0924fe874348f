import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { UserStatus } from '../users/user-status.js';
import { writeInBatches } from './batch-write.js';
import { conditionalWrite } from './conditional-write.js';
import { type ItemKey, SESSION_PREFIX, sessionKey, userKey } from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

// Sessions: one item per session, in its user's partition (keys.ts sessionKey).

/** How a session began: registration, an OTP login, a PIN login. */
export type SessionStart = 'register' | 'otp' | 'pin';

export interface SessionRecord {
  user_type: number;
  /** How the session began (sessions from before this was kept have none). */
  began?: SessionStart | undefined;
  /** The bound device it began on, if any: removing the device ends the session. */
  device_key?: string | undefined;
  created_at: number;
  /** Epoch seconds of the last recorded use (recorded at most once per touch interval). */
  last_used_at: number;
  /**
   * Epoch seconds when the session is over: the earlier of its absolute lifetime and its idle
   * timeout from the last recorded use. Also the table's TTL attribute.
   */
  expires_at: number;
  /** SHA-256 of the session's current refresh token (none on an opaque token's session, from before 3.12). */
  refresh_hash?: string | undefined;
  /** The current refresh token's generation: 1 at the start, one more each refresh. */
  refresh_gen?: number | undefined;
}

/** The write that stores a new session, for a transaction. */
export function sessionPut(table: Table, companyId: string, userId: string, tokenHash: string, record: SessionRecord): TransactItem {
  return putIfAbsent(table, sessionKey(companyId, userId, tokenHash), record);
}

/** What the user's side of a session grant also changes or requires. */
export interface GrantTerms {
  /** The code reached the phone: the user is phone-verified from now on. */
  phoneVerified?: boolean;
  /** The PIN compared was this version of that PIN (a change or reset since refuses the grant). */
  pinVersion?: { attribute: string; seen: number };
  /** Devices bound and removed with the session: added to the user's device count; with max, refused at that maximum. */
  deviceCount?: { add: number; max?: number };
}

/**
 * The user's side of a new session, in the same transaction: only an active user may have one,
 * and session_version counts every session ever granted, so that whatever ends all sessions
 * (end-sessions.ts) can tell that one was granted while it worked.
 */
export function sessionGrant(table: Table, companyId: string, userId: string, terms: GrantTerms = {}): TransactItem {
  const adds = ['session_version :one'];
  const conditions = ['attribute_exists(pk)', 'status_id = :active'];
  const values: Record<string, unknown> = { ':one': 1, ':active': UserStatus.ACTIVE };
  const names: Record<string, string> = {};
  if (terms.pinVersion) {
    names['#pinVersion'] = terms.pinVersion.attribute;
    values[':pinVersion'] = terms.pinVersion.seen;
    // A PIN never changed has no version: 0.
    conditions.push(`(#pinVersion = :pinVersion${terms.pinVersion.seen === 0 ? ' OR attribute_not_exists(#pinVersion)' : ''})`);
  }
  if (terms.deviceCount && terms.deviceCount.add !== 0) {
    adds.push('device_count :devices');
    values[':devices'] = terms.deviceCount.add;
  }
  if (terms.deviceCount?.max !== undefined) {
    values[':maxDevices'] = terms.deviceCount.max;
    conditions.push('(attribute_not_exists(device_count) OR device_count < :maxDevices)');
  }
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: `ADD ${adds.join(', ')}${terms.phoneVerified ? ' SET phone_verified = :one' : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    },
  };
}

/** A session as stored, read strongly consistently: a session that was ended is gone at once. */
export async function getSession(table: Table, companyId: string, userId: string, tokenHash: string): Promise<SessionRecord | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: sessionKey(companyId, userId, tokenHash), ConsistentRead: true }),
  );
  return Item as SessionRecord | undefined;
}

/** Records a use of a session, unless another call recorded one since `seenLastUsedAt` or it was ended. */
export async function touchSession(table: Table, key: ItemKey, seenLastUsedAt: number, now: number): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        // last_used_at only: for some roles the one attribute of a user's partition they may write
        // (serverless/permissions.cjs). Never an item anew: IAM cannot require this condition.
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND last_used_at = :seen',
        ExpressionAttributeValues: { ':now': now, ':seen': seenLastUsedAt },
      }),
    ),
  );
}

/** A refresh token spent: the session as it now is; or refused, with the session as the condition saw it (if any). */
export type RefreshSpend = { spent: true; session: SessionRecord } | { spent: false; seen: SessionRecord | undefined };

/**
 * Spends a session's refresh token (API contract 3.12) in one conditional write: only while the
 * session holds that token's hash and is live, it takes the next token's hash and generation and
 * records the use. Refused, it answers the session as the condition saw it.
 */
export async function spendRefreshToken(
  table: Table,
  key: ItemKey,
  spend: { presentedHash: string; next: { hash: string; generation: number }; now: number; idleSeconds: number },
): Promise<RefreshSpend> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET refresh_hash = :next, refresh_gen = :generation, last_used_at = :now',
        ConditionExpression: 'refresh_hash = :presented AND expires_at > :now AND last_used_at > :idleBefore',
        ExpressionAttributeValues: {
          ':next': spend.next.hash,
          ':generation': spend.next.generation,
          ':now': spend.now,
          ':presented': spend.presentedHash,
          ':idleBefore': spend.now - spend.idleSeconds,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  return outcome.written
    ? { spent: true, session: outcome.result.Attributes as SessionRecord }
    : { spent: false, seen: outcome.seen as SessionRecord | undefined };
}

/** Ends one session; false when it was not there (already ended). */
export async function deleteSession(table: Table, companyId: string, userId: string, tokenHash: string): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new DeleteCommand({
        TableName: table.name,
        Key: sessionKey(companyId, userId, tokenHash),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );
  return outcome.written;
}

export interface StoredSession {
  key: ItemKey;
  expiresAt: number;
  lastUsedAt: number;
  /** The device it is bound to, if any. */
  deviceKey: string | undefined;
}

/**
 * Every stored session of a user (expired ones included, as DynamoDB deletes them late), read
 * strongly consistently; or only those bound to one device.
 */
export async function querySessions(table: Table, companyId: string, userId: string, deviceKey?: string): Promise<StoredSession[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, userId).pk, SESSION_PREFIX, {
    filter: deviceKey ? { expression: 'device_key = :device', values: { ':device': deviceKey } } : undefined,
    projection: 'pk, sk, expires_at, last_used_at, device_key',
  });
  return items.map((item) => ({
    key: { pk: item.pk as string, sk: item.sk as string },
    expiresAt: item.expires_at as number,
    lastUsedAt: item.last_used_at as number,
    deviceKey: item.device_key as string | undefined,
  }));
}

/** The write that ends one session inside a transaction; with mustExist, the transaction fails if it already ended. */
export function sessionDelete(table: Table, key: ItemKey, mustExist = false): TransactItem {
  return { Delete: { TableName: table.name, Key: key, ...(mustExist ? { ConditionExpression: 'attribute_exists(pk)' } : {}) } };
}

/** Deletes sessions 25 at a time, retrying what DynamoDB leaves unprocessed. */
export async function deleteSessions(table: Table, keys: ItemKey[]): Promise<void> {
  await writeInBatches(
    table,
    keys.map((key) => ({ DeleteRequest: { Key: key } })),
  );
}
