import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { adminCountKey, STAFF_ACTION_PREFIX, staffActionKey, staffLogKey, staffLookupsKey, userKey } from './keys.js';
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
}

/**
 * Sets an employee's role, only while they are an active employee of the company and their role is
 * still the one read (`seen`; absent: none). `role` undefined removes it.
 */
export function employeeRoleChange(
  table: Table,
  companyId: string,
  userId: string,
  change: { seen: StaffRole | undefined; role: StaffRole | undefined; employeeType: number; activeStatus: number; nowSeconds: number },
): TransactItem {
  const values: Record<string, unknown> = { ':type': change.employeeType, ':active': change.activeStatus, ':now': change.nowSeconds };
  const seen = change.seen === undefined ? 'attribute_not_exists(#role)' : '#role = :seen';
  if (change.seen !== undefined) values[':seen'] = change.seen;
  if (change.role !== undefined) values[':role'] = change.role;
  return {
    Update: {
      TableName: table.name,
      Key: userKey(companyId, userId),
      UpdateExpression: change.role === undefined ? 'REMOVE #role SET updated_at = :now' : 'SET #role = :role, updated_at = :now',
      ConditionExpression: `attribute_exists(pk) AND user_type = :type AND status_id = :active AND ${seen}`,
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * One admin more or fewer in the company's count. One fewer only while another remains (the last
 * admin keeps the role, API contract 3.14): the condition is the count, counted before compared.
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

/** The record of one back-office action: in its company's log of the day, and in the user's partition when it names one. */
export function staffActionPuts(table: Table, record: StaffActionRecord): TransactItem[] {
  // staff_log marks the log's copy, the one the table's stream makes an admin.action of (serverless.yml's filter).
  const log = putIfAbsent(table, staffLogKey(record.company_id, record.at_ms, record.action_id), { ...record, staff_log: 1 });
  if (!record.user_id) return [log];
  return [log, putIfAbsent(table, staffActionKey(record.company_id, record.user_id, record.at_ms, record.action_id), record)];
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

/** A company's back-office actions of one UTC day (YYYY-MM-DD), oldest first. */
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
