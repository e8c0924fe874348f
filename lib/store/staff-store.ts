import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  AWAITING_RECOVERY_PREFIX,
  adminCountKey,
  adminSeatKey,
  awaitingRecoveryKey,
  GRANT_PREFIX,
  grantKey,
  STAFF_ACTION_PREFIX,
  STAFF_CHAIN_PREFIX,
  staffActionKey,
  staffChainHeadKey,
  staffChainKey,
  staffLogKey,
  staffLookupsKey,
  userKey,
} from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import { countInWindow } from './send-limit-store.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

// The back office's items (API contract 3.14): an employee's role on their record, the company's
// count of admins, and the record of every search, view and action.

export type StaffRole = 'support' | 'admin';

/** One back-office search, view or action, as kept: who, what, on whom, when and why. */
export interface StaffActionRecord {
  action_id: string;
  company_id: string;
  actor_id: string;
  action: string;
  /** The user it names; absent for a search that found nobody. */
  user_id?: string | undefined;
  /** Why, as the employee gave it: kept here and in the audit log, never in an event. */
  reason: string;
  /** Epoch milliseconds. */
  at_ms: number;
  /** What else an auditor needs to read the action (the role granted, the grant approved); never a secret. */
  details?: Record<string, string | number> | undefined;
}

/** A record at its place in its company's chain (lib/staff/staff-chain.ts). */
export interface ChainedStaffRecord extends StaffActionRecord {
  /** 1, 2, ...: its place, with no gap. */
  seq: number;
  /** The record_hash of the record before it (64 zeros for the first). */
  prev_hash: string;
  /** The SHA-256 of every attribute of the record but its keys and this one. */
  record_hash: string;
}

/** The head of a company's staff chain: its last record's seq and record_hash (seq 0: no record yet). */
export interface StaffChainHead {
  seq: number;
  hash: string;
}

/**
 * Sets an employee's role, only while they are an active employee of the company and their role is
 * still the one read (`seen`; absent: none). A role given (`given`) is written with when and by whom
 * (asked, and approved when two admins gave it); a role lowered (admin to support) keeps those of
 * the power it came from. `role` undefined removes it, and with it who gave it.
 */
export function employeeRoleChange(
  table: Table,
  companyId: string,
  userId: string,
  change: {
    seen: StaffRole | undefined;
    role: StaffRole | undefined;
    employeeType: number;
    activeStatus: number;
    nowSeconds: number;
    given?: { grantedBy: string; approvedBy?: string | undefined } | undefined;
  },
): TransactItem {
  const values: Record<string, unknown> = { ':type': change.employeeType, ':active': change.activeStatus, ':now': change.nowSeconds };
  const seen = change.seen === undefined ? 'attribute_not_exists(#role)' : '#role = :seen';
  if (change.seen !== undefined) values[':seen'] = change.seen;
  let update = 'REMOVE #role, role_since, role_granted_by, role_approved_by SET updated_at = :now';
  if (change.role !== undefined) {
    values[':role'] = change.role;
    update = 'SET #role = :role, updated_at = :now';
    const given = change.given;
    if (given) {
      values[':grantedBy'] = given.grantedBy;
      update += ', role_since = :now, role_granted_by = :grantedBy';
      if (given.approvedBy === undefined) update += ' REMOVE role_approved_by';
      else {
        values[':approvedBy'] = given.approvedBy;
        update = update.replace('role_granted_by = :grantedBy', 'role_granted_by = :grantedBy, role_approved_by = :approvedBy');
      }
    }
  }
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: update,
      ConditionExpression: `attribute_exists(pk) AND user_type = :type AND status_id = :active AND ${seen}`,
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * One active admin more or fewer in the company's count. One fewer only while another remains (the
 * last active admin keeps the role, API contract 3.14): the condition is the count, counted before compared.
 */
export function adminCountChange(table: Table, companyId: string, by: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: adminCountKey(companyId),
      UpdateExpression: 'ADD admins :by',
      ...(by < 0 ? { ConditionExpression: 'admins > :one' } : {}),
      ExpressionAttributeValues: by < 0 ? { ':by': by, ':one': 1 } : { ':by': by },
    },
  };
}

/** An active admin's seat taken: only while none is there. */
export function adminSeatPut(table: Table, companyId: string, userId: string, sinceSeconds: number): TransactItem {
  return putIfAbsent(table, adminSeatKey(companyId, userId), { user_id: userId, since: sinceSeconds });
}

/** An active admin's seat given up: only while it is there (a second change that read the same admin fails here). */
export function adminSeatDelete(table: Table, companyId: string, userId: string): TransactItem {
  return { Delete: { TableName: table.name, Key: adminSeatKey(companyId, userId), ConditionExpression: 'attribute_exists(pk)' } };
}

/** No seat for this employee: they are not an active admin (a grant that made them one meanwhile fails this). */
export function adminSeatAbsent(table: Table, companyId: string, userId: string): TransactItem {
  return {
    ConditionCheck: { TableName: table.name, Key: adminSeatKey(companyId, userId), ConditionExpression: 'attribute_not_exists(pk)' },
  };
}

/** The company's count of active admins, and their seats, strongly consistent (the chaos run's check, the migration). */
export async function getActiveAdmins(table: Table, companyId: string): Promise<{ count: number; seats: string[] }> {
  const items = await queryPartitionPrefix(table, adminCountKey(companyId).pk, '');
  const count = items.find((item) => item.sk === adminCountKey(companyId).sk)?.admins;
  return {
    count: Number(count ?? 0),
    seats: items.filter((item) => String(item.sk).startsWith('SEAT#')).map((item) => String(item.user_id)),
  };
}

/** What a second admin approves (API contract 3.14, round 6): a role, or a change of the company's security settings. */
export interface StoredGrant {
  grant_id: string;
  company_id: string;
  kind: 'role' | 'company';
  /** The admin who asked. */
  requested_by: string;
  /** Epoch seconds. */
  requested_at: number;
  /** Epoch seconds: void from then on, unapproved. */
  expires_at: number;
  status: 'pending' | 'approved';
  approved_by?: string;
  approved_at?: number;
  /** A role grant: whose, which, from which. */
  user_id?: string;
  role?: StaffRole;
  from_role?: StaffRole | 'none';
  /** A company grant: the settings as company/update took them (plain data, no secret). */
  settings?: Record<string, unknown>;
  /** A company grant: the names of the security settings it changes. */
  setting_names?: string[];
  /** DynamoDB's TTL: a while after it is void or approved, it goes (the staff record keeps what happened). */
  ttl: number;
}

export function grantPut(table: Table, grant: StoredGrant): TransactItem {
  return putIfAbsent(table, grantKey(grant.company_id, grant.grant_id), grant);
}

/** A grant approved, only once, and only while it is unexpired. */
export function grantApproval(
  table: Table,
  companyId: string,
  grantId: string,
  approval: { approverId: string; nowSeconds: number },
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: grantKey(companyId, grantId),
      UpdateExpression: 'SET #status = :approved, approved_by = :approver, approved_at = :now',
      ConditionExpression: '#status = :pending AND expires_at > :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':approved': 'approved',
        ':pending': 'pending',
        ':approver': approval.approverId,
        ':now': approval.nowSeconds,
      },
    },
  };
}

export async function getGrant(table: Table, companyId: string, grantId: string): Promise<StoredGrant | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: grantKey(companyId, grantId), ConsistentRead: true }),
  );
  return Item as StoredGrant | undefined;
}

/** A recovery awaiting approval, as the list shows it beside the grants (the change itself stays in the user's partition). */
export interface AwaitingRecovery {
  change_id: string;
  user_id: string;
  started_by: string;
  started_at: number;
  approve_by: number;
  ttl: number;
}

export function awaitingRecoveryPut(table: Table, companyId: string, recovery: AwaitingRecovery): TransactItem {
  return { Put: { TableName: table.name, Item: { ...recovery, ...awaitingRecoveryKey(companyId, recovery.change_id) } } };
}

export function awaitingRecoveryDelete(table: Table, companyId: string, changeId: string): TransactItem {
  return { Delete: { TableName: table.name, Key: awaitingRecoveryKey(companyId, changeId) } };
}

/** What awaits approval in a company: the grants (any status: the caller keeps the pending, unexpired ones) and the recoveries listed. */
export async function queryAwaitingApproval(
  table: Table,
  companyId: string,
): Promise<{ grants: StoredGrant[]; recoveries: AwaitingRecovery[] }> {
  const items = await queryPartitionPrefix(table, grantKey(companyId, '').pk, '');
  return {
    grants: items.filter((item) => String(item.sk).startsWith(GRANT_PREFIX)) as unknown as StoredGrant[],
    recoveries: items.filter((item) => String(item.sk).startsWith(AWAITING_RECOVERY_PREFIX)) as unknown as AwaitingRecovery[],
  };
}

/**
 * The record of one back-office action appended to its company's chain: the head moved from the
 * record before it (only while it is still that one: another writer who took the place first
 * fails this, and the record is renewed at the next place), the record at its place, and its copy
 * in the user's partition when it names one.
 */
export function staffChainWrites(table: Table, record: ChainedStaffRecord): TransactItem[] {
  const { company_id: companyId, seq } = record;
  const head: TransactItem = {
    Update: {
      TableName: table.name,
      Key: staffChainHeadKey(companyId),
      UpdateExpression: 'SET seq = :seq, #hash = :hash, at_ms = :at',
      ConditionExpression: seq === 1 ? 'attribute_not_exists(pk)' : 'seq = :before',
      ExpressionAttributeNames: { '#hash': 'hash' },
      ExpressionAttributeValues: {
        ':seq': seq,
        ':hash': record.record_hash,
        ':at': record.at_ms,
        ...(seq === 1 ? {} : { ':before': seq - 1 }),
      },
    },
  };
  // staff_log marks the chain's record, the one the table's stream makes an admin.action of (serverless.yml's filter).
  const log = putIfAbsent(table, staffChainKey(companyId, seq), { ...record, staff_log: 1 });
  if (!record.user_id) return [head, log];
  return [head, log, putIfAbsent(table, staffActionKey(companyId, record.user_id, record.at_ms, record.action_id), record)];
}

/** The head of a company's staff chain, read strongly consistently. */
export async function getStaffChainHead(table: Table, companyId: string, genesis: string): Promise<StaffChainHead> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: staffChainHeadKey(companyId), ConsistentRead: true }),
  );
  return Item ? { seq: Number(Item.seq), hash: String(Item.hash) } : { seq: 0, hash: genesis };
}

/** A company's staff chain as stored, every item of its partition in key order (what staff:verify walks), one page at a time. */
export async function* queryStaffChainPages(table: Table, companyId: string): AsyncGenerator<Record<string, unknown>[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': staffChainKey(companyId, 0).pk },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

/** A company's whole staff chain, oldest first, strongly consistent. */
export async function queryStaffChain(table: Table, companyId: string): Promise<ChainedStaffRecord[]> {
  return (await queryPartitionPrefix(table, staffChainKey(companyId, 0).pk, STAFF_CHAIN_PREFIX)) as unknown as ChainedStaffRecord[];
}

/** A company's staff records from `sinceMs` on, oldest first: read from the newest back until one is older. */
export async function queryStaffChainSince(table: Table, companyId: string, sinceMs: number): Promise<ChainedStaffRecord[]> {
  const records: ChainedStaffRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': staffChainKey(companyId, 0).pk, ':prefix': STAFF_CHAIN_PREFIX },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of (page.Items ?? []) as ChainedStaffRecord[]) {
      // Records are appended in time order but for a few milliseconds between writers: a day's margin stops the walk.
      if (item.at_ms < sinceMs - 24 * 3600 * 1000) return records.reverse().filter((record) => record.at_ms >= sinceMs);
      records.push(item);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return records.reverse().filter((record) => record.at_ms >= sinceMs);
}

/**
 * The latest back-office actions on a user, newest first, by what was done, by whom and when: never
 * the reason. Strongly consistent, so a view lists itself.
 */
export async function queryStaffActionsOn(
  table: Table,
  companyId: string,
  userId: string,
  limit: number,
): Promise<Pick<StaffActionRecord, 'action' | 'actor_id' | 'at_ms'>[]> {
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': userKey(companyId, userId).pk, ':prefix': STAFF_ACTION_PREFIX },
      ProjectionExpression: '#action, actor_id, at_ms',
      ExpressionAttributeNames: { '#action': 'action' },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return Items as Pick<StaffActionRecord, 'action' | 'actor_id' | 'at_ms'>[];
}

/** A company's back-office actions of one UTC day (YYYY-MM-DD) as kept before the chain (round 6), oldest first. */
export async function queryStaffLogOfDay(table: Table, companyId: string, day: string): Promise<StaffActionRecord[]> {
  const pk = staffLogKey(companyId, Date.parse(`${day}T00:00:00Z`), '').pk;
  return (await queryPartitionPrefix(table, pk, '')) as unknown as StaffActionRecord[];
}

/** The back-office actions on one user, oldest first (their partition keeps them for as long as the user is kept). */
export async function queryStaffActionsOnUser(table: Table, companyId: string, userId: string): Promise<StaffActionRecord[]> {
  return (await queryPartitionPrefix(table, userKey(companyId, userId).pk, STAFF_ACTION_PREFIX)) as unknown as StaffActionRecord[];
}

/** Counts one back-office lookup (a search or a view) of an employee in its clock hour: false once the hour's ceiling is reached. */
export function countStaffLookup(table: Table, companyId: string, employeeId: string, hour: number, ceiling: number): Promise<boolean> {
  return countInWindow(table, staffLookupsKey(companyId, employeeId, hour), 'lookups', ceiling, (hour + 2) * 3600);
}
