import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writeInBatches } from './batch-write.js';
import { conditionalWrite, counterStillIs } from './conditional-write.js';
import {
  DEVICE_NONCE_PREFIX,
  deviceIndexKey,
  ERASURE_COMPANIES_PK,
  ERASURE_DUE_PREFIX,
  erasureCompanyKey,
  erasureDueKey,
  type ItemKey,
  NOTIFICATION_PREFIX,
  referralCodeKey,
  USER_SORT_KEY,
  userKey,
} from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';
import { UserStatus } from './user-status.js';
import { claimRelease, type UserRecord } from './user-store.js';

// Deletion and erasure (API contract 3.11): the deleted user's record waits in status 4 with
// `erase_after`; a due item in the company's due list (and the company in the list of companies
// with deletions) lets the eraser find it by time, with Queries only.

/** What a deletion keeps on the user until erasure, so user:restore can take the claims back and the eraser find what is theirs. */
export interface DeletionMarks {
  erase_after: number;
  deleted_at: number;
  /** The devices removed by the deletion: their nonces are erased with the account. */
  deleted_device_keys?: string[] | undefined;
}

/** The user's record at deletion: status 4, the erasure's time, no device left; only while active and no session was granted since read. */
export function userDeletionChange(
  table: Table,
  companyId: string,
  userId: string,
  sessionVersion: number,
  marks: DeletionMarks,
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression:
        'SET status_id = :deleted, erase_after = :eraseAfter, deleted_at = :now, updated_at = :now, device_count = :zero' +
        (marks.deleted_device_keys?.length ? ', deleted_device_keys = :devices' : ''),
      ConditionExpression: `attribute_exists(pk) AND status_id = :active AND ${counterStillIs('session_version', ':version', sessionVersion)}`,
      ExpressionAttributeValues: {
        ':deleted': UserStatus.DELETION_REQUESTED,
        ':active': UserStatus.ACTIVE,
        ':eraseAfter': marks.erase_after,
        ':now': marks.deleted_at,
        ':zero': 0,
        ':version': sessionVersion,
        ...(marks.deleted_device_keys?.length ? { ':devices': marks.deleted_device_keys } : {}),
      },
    },
  };
}

/** The user's place in the due list, and their company's in the list of companies the eraser visits. */
export function erasureDuePuts(table: Table, companyId: string, userId: string, eraseAfter: number): TransactItem[] {
  return [
    { Put: { TableName: table.name, Item: { ...erasureDueKey(companyId, eraseAfter, userId), user_id: userId, erase_after: eraseAfter } } },
    // The same item for every deletion of the company: written again, it changes nothing.
    { Put: { TableName: table.name, Item: { ...erasureCompanyKey(companyId), company_id: companyId } } },
  ];
}

export function erasureDueDelete(table: Table, companyId: string, userId: string, eraseAfter: number): TransactItem {
  return { Delete: { TableName: table.name, Key: erasureDueKey(companyId, eraseAfter, userId) } };
}

export async function deleteErasureDue(table: Table, companyId: string, userId: string, eraseAfter: number): Promise<void> {
  await table.client.send(new DeleteCommand({ TableName: table.name, Key: erasureDueKey(companyId, eraseAfter, userId) }));
}

/** The companies that ever had a deletion (a Query of one small partition). */
export async function erasureCompanies(table: Table): Promise<string[]> {
  const items = await queryPartitionPrefix(table, ERASURE_COMPANIES_PK, '', { projection: 'company_id' });
  return items.map((item) => item.company_id as string);
}

export interface DueErasure {
  userId: string;
  eraseAfter: number;
}

/** One page of a company's erasures due by `nowSeconds`, oldest first; `next` when there may be more. */
export async function dueErasures(
  table: Table,
  companyId: string,
  nowSeconds: number,
  pageSize: number,
  start?: Record<string, unknown>,
): Promise<{ due: DueErasure[]; next: Record<string, unknown> | undefined }> {
  const { pk } = erasureDueKey(companyId, 0, '');
  const page = await table.client.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': pk, ':first': ERASURE_DUE_PREFIX, ':last': `${erasureDueKey(companyId, nowSeconds, '').sk}~` },
      ConsistentRead: true,
      Limit: pageSize,
      ExclusiveStartKey: start,
    }),
  );
  return {
    due: (page.Items ?? []).map((item) => ({ userId: item.user_id as string, eraseAfter: item.erase_after as number })),
    next: page.LastEvaluatedKey,
  };
}

/**
 * The first step of an erasure: the user becomes ERASED (5), only from DELETION_REQUESTED once due,
 * so a restore that came first wins and one that comes after is refused. Their data stays until the
 * last step, so a run cut off in between is finished by the next one. False: not (or no longer) due.
 */
export async function markErasing(table: Table, companyId: string, userId: string, nowSeconds: number): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: userKey(companyId, userId),
        UpdateExpression: 'SET status_id = :erased, erased_at = if_not_exists(erased_at, :now)',
        ConditionExpression: '(status_id = :deleted AND erase_after <= :now) OR status_id = :erased',
        ExpressionAttributeValues: { ':erased': UserStatus.ERASED, ':deleted': UserStatus.DELETION_REQUESTED, ':now': nowSeconds },
      }),
    ),
  );
  return outcome.written;
}

/** Every item of the user's partition but the record itself: sessions, devices, notifications, counts, PIN tries. */
export async function userPartitionRest(table: Table, companyId: string, userId: string): Promise<ItemKey[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, userId).pk, '', { projection: 'pk, sk' });
  return items.filter((item) => item.sk !== USER_SORT_KEY).map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
}

/** The nonces a removed device's PIN logins left (its index item went with the deletion). */
export async function deviceNonceKeys(table: Table, companyId: string, deviceKey: string): Promise<ItemKey[]> {
  const items = await queryPartitionPrefix(table, deviceIndexKey(companyId, deviceKey).pk, DEVICE_NONCE_PREFIX, { projection: 'pk, sk' });
  return items.map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
}

export async function deleteKeys(table: Table, keys: ItemKey[]): Promise<void> {
  await writeInBatches(
    table,
    keys.map((key) => ({ DeleteRequest: { Key: key } })),
  );
}

/** Deletes an item only while it names this user (a claim, a device's index); true when it did. */
export async function deleteIfUsers(table: Table, key: ItemKey, userId: string): Promise<boolean> {
  return (await conditionalWrite(table.client.send(new DeleteCommand({ ...claimRelease(table, key, userId).Delete! })))).written;
}

/**
 * Deletes one of a number's codes or counters if it expired, or if it was last written (its
 * `writtenAt` attribute, in seconds) before `before`: one conditional delete, so an item whoever
 * uses the number next writes meanwhile is never taken with it.
 */
export async function deletePhoneItemWrittenBefore(
  table: Table,
  key: ItemKey,
  writtenAt: string,
  before: number | undefined,
  now: number,
): Promise<void> {
  const written = before === undefined ? '' : ' OR #written < :before';
  await conditionalWrite(
    table.client.send(
      new DeleteCommand({
        TableName: table.name,
        Key: key,
        ConditionExpression: `attribute_exists(pk) AND (expires_at <= :now${written})`,
        ...(before === undefined
          ? { ExpressionAttributeValues: { ':now': now } }
          : { ExpressionAttributeNames: { '#written': writtenAt }, ExpressionAttributeValues: { ':now': now, ':before': before } }),
      }),
    ),
  );
}

/** The erased user's referral code stops attributing: its claim goes, only while theirs. */
export async function releaseReferralCode(table: Table, companyId: string, referralCode: string, userId: string): Promise<void> {
  await deleteIfUsers(table, referralCodeKey(companyId, referralCode), userId);
}

/** Whether anyone holds an item (a claim) under this key. */
export async function itemExists(table: Table, key: ItemKey): Promise<boolean> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  return Item !== undefined;
}

/** The referrer's notifications that named the referred user: their sort keys. */
export async function referralNotificationsNaming(table: Table, companyId: string, referrerId: string, userId: string): Promise<ItemKey[]> {
  const items = await queryPartitionPrefix(table, userKey(companyId, referrerId).pk, NOTIFICATION_PREFIX, {
    filter: { expression: 'referred_user_id = :user', values: { ':user': userId } },
    projection: 'pk, sk',
  });
  return items.map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
}

/** A referrer's notification that named an erased user, told without the name (its read state and the counts unchanged). */
export async function blankReferralNotification(table: Table, key: ItemKey, body: string): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET notification_body = :body REMOVE referred_user_id',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':body': body },
      }),
    ),
  );
}

/** What an erased user's record keeps (API contract 3.11). */
export type ErasedRecord = Pick<UserRecord, 'user_id' | 'company_id' | 'user_type' | 'created_at'> & { status_id: 5; erased_at: number };

/** The last step: the record is replaced by what is kept, only while it is being erased. */
export async function putErasedRecord(table: Table, record: ErasedRecord): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...userKey(record.company_id, record.user_id), ...record },
        ConditionExpression: 'status_id = :erased',
        ExpressionAttributeValues: { ':erased': UserStatus.ERASED },
      }),
    ),
  );
}
