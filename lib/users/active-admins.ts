import { AppError } from '../errors.js';
import { adminCountChange, adminSeatAbsent, adminSeatDelete, adminSeatPut } from '../store/staff-store.js';
import type { Table } from '../store/table.js';
import { ConditionsFailed, type LabelledItem } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import type { UserRecord } from '../store/user-store.js';
import { UserType } from './user-types.js';

// A company always keeps an ACTIVE admin (API contract 3.14, round 6): the last-admin rule counts
// employees who are admin and active, whatever takes them out (a demotion, a disable, a deletion).
// Each active admin holds a seat beside the company's count; every change in or out of that set
// writes the seat on condition (put only while absent, deleted only while there) and moves the
// count (one fewer only while another remains), in the change's own transaction. So two changes
// that each read the same admin, or two admins taking each other out at once, cannot both pass:
// the second finds the seat gone or the count at one. A module below account/ and admin/, which
// both take an admin out (a deletion, a disable).

export type SeatLabel = 'seat' | 'admins';

/** 409 code 21: the company's last active admin stays one. */
export const lastActiveAdmin = () =>
  new AppError('LAST_ADMIN', {
    detail: 'the company’s last active admin stays one: make another employee admin (or enable one) first',
  });

/** Whether the employee as read is one of the company's active admins. */
export function isActiveAdmin(user: Pick<UserRecord, 'user_type' | 'status_id'> & { role?: string | undefined }): boolean {
  return user.user_type === UserType.EMPLOYEE && user.status_id === UserStatus.ACTIVE && user.role === 'admin';
}

/** An active admin leaves the set: the seat given up, one fewer (only while another remains). */
export function adminLeaves(table: Table, companyId: string, userId: string): LabelledItem<SeatLabel>[] {
  return [
    { label: 'seat', item: adminSeatDelete(table, companyId, userId) },
    { label: 'admins', item: adminCountChange(table, companyId, -1) },
  ];
}

/** An employee joins the set of active admins: a seat taken, one more. */
export function adminJoins(table: Table, companyId: string, userId: string, sinceSeconds: number): LabelledItem<SeatLabel>[] {
  return [
    { label: 'seat', item: adminSeatPut(table, companyId, userId, sinceSeconds) },
    { label: 'admins', item: adminCountChange(table, companyId, 1) },
  ];
}

/**
 * What keeps the count right when a user as read stops being active (a disable, a deletion), for a
 * change that reads the user again when a write labelled `user` fails (end-sessions.ts
 * changeEndingSessions): an active admin leaves (their seat labelled `user`, the count `admins`:
 * its failure is the last active admin's, 409 code 21); any other employee must still hold no seat
 * (a grant that made them an active admin meanwhile fails this, and the change is read again); a
 * customer holds none.
 */
export function seatsOnLeavingActive(
  table: Table,
  companyId: string,
  user: Pick<UserRecord, 'user_id' | 'user_type' | 'status_id'> & { role?: string | undefined },
): LabelledItem<'user' | 'admins'>[] {
  if (user.user_type !== UserType.EMPLOYEE) return [];
  if (!isActiveAdmin(user)) return [{ label: 'user', item: adminSeatAbsent(table, companyId, user.user_id) }];
  return adminLeaves(table, companyId, user.user_id).map(({ label, item }) => ({ label: label === 'seat' ? 'user' : 'admins', item }));
}

/** A change refused because it would take the company's last active admin out: 409 code 21. */
export function leftNoActiveAdmin(error: unknown): boolean {
  return error instanceof ConditionsFailed && error.labels.includes('admins');
}

/** What keeps the count right when a user as read becomes active again (an enable, a restore): an admin joins. */
export function seatsOnBecomingActive(
  table: Table,
  companyId: string,
  user: Pick<UserRecord, 'user_id' | 'user_type'> & { role?: string | undefined },
  nowSeconds: number,
): LabelledItem<SeatLabel>[] {
  return user.user_type === UserType.EMPLOYEE && user.role === 'admin' ? adminJoins(table, companyId, user.user_id, nowSeconds) : [];
}
