import { randomBytes } from 'node:crypto';
import type { App } from '../app-context.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import type { RequestOrigin } from '../observability/audit.js';
import { audit } from '../observability/audit.js';
import type { ChainedStaffRecord } from '../store/staff-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { appendToChain, type StaffChain } from './staff-chain.js';

// The record of every back-office search, view and action (API contract 3.14): who, what, on whom
// (when it names a user), when and why, written in the same transaction as what it records (a
// search or a view, which write nothing else, write it alone), at its place in the company's hash
// chain (staff-chain.ts). The table's stream makes each one an admin.action event with its seq and
// hash, without the reason; the reason stays in the record and the audit log.

/** The actions' names, in records and events alike. */
export const STAFF_ACTIONS = [
  'search',
  'view',
  'sessions_end',
  'status',
  'device_remove',
  'restore',
  'phone_recover',
  'phone_approve',
  'phone_cancel',
  'role',
  // Round 6: an employee registered by an admin; a role grant asked and approved by another admin.
  'employee_register',
  'role_grant',
  'role_approve',
  // The company's settings (admin): they name no user, so they are kept in the company's log only.
  'company_view',
  'company_update',
  // Round 6: a change of the security settings asked, and approved by another admin; what awaits approval, listed.
  'company_grant',
  'company_approve',
  'approvals_list',
  // Passkeys (contract 3.16 and 3.15's second reading): support or an admin removes one of a user's.
  'passkey_remove',
  // Second reading: an employee's device settled by another admin.
  'device_approve',
  // An employee's own passkey added or removed, with its reason (contract 3.16: staff add one with a reason).
  'self_passkey_add',
  'self_passkey_remove',
] as const;
export type StaffAction = (typeof STAFF_ACTIONS)[number];

/** The actions that change a user's account: each puts notice 8 in the user's list. */
export type ActionOnUser = Extract<
  StaffAction,
  'sessions_end' | 'status' | 'device_remove' | 'restore' | 'phone_recover' | 'phone_approve' | 'phone_cancel' | 'passkey_remove'
>;

/** What an action records: who, what, on whom, why, and what else an auditor needs to read it. */
export interface StaffActionEntry {
  companyId: string;
  actorId: string;
  action: StaffAction;
  userId?: string | undefined;
  reason: string;
  details?: Record<string, string | number> | undefined;
}

/** An action about to be recorded: its record and the items that keep it, renewed at the chain's next place if another writer took this one. */
export async function staffActionRecord(
  app: Pick<App, 'clock' | 'table'>,
  chain: StaffChain,
  entry: StaffActionEntry,
): Promise<{ record: ChainedStaffRecord; writes: LabelledItem<'record'>[] }> {
  return appendToChain(app, chain, {
    action_id: randomBytes(16).toString('hex'),
    company_id: entry.companyId,
    actor_id: entry.actorId,
    action: entry.action,
    ...(entry.userId ? { user_id: entry.userId } : {}),
    reason: entry.reason,
    at_ms: app.clock.now(),
    ...(entry.details ? { details: entry.details } : {}),
  });
}

/**
 * An action on a user's account (not a search or a view): its record, and notice 8 "changed by
 * support" in the user's list, both for the transaction of the change itself.
 */
export async function staffActionOnUser(
  app: Pick<App, 'clock' | 'table'>,
  chain: StaffChain,
  entry: StaffActionEntry & { action: ActionOnUser; userId: string },
  /** The unread count's shard of notice 8, when the action's transaction adds another notice (distinctUnreadShards). */
  unreadShard?: number,
): Promise<{ record: ChainedStaffRecord; writes: LabelledItem<'record'>[] }> {
  const { record, writes } = await staffActionRecord(app, chain, entry);
  const notice = securityNotificationWrites(app.table, entry.companyId, entry.userId, {
    event: SecurityEvent.CHANGED_BY_SUPPORT,
    nowMs: record.at_ms,
    unreadShard,
  });
  return { record, writes: [...writes, ...notice.map((item) => ({ label: 'record' as const, item }))] };
}

/** The audit line of a recorded action: with its reason, as the record has it. */
export function auditStaffAction(app: App, origin: RequestOrigin | undefined, record: ChainedStaffRecord, outcome: string): void {
  audit(app, origin, 'staff_action', {
    company_id: record.company_id,
    user_id: record.user_id,
    actor_id: record.actor_id,
    action: record.action,
    action_id: record.action_id,
    seq: record.seq,
    reason: record.reason,
    outcome,
  });
}
