import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { fieldError } from '../errors.js';
import { newId } from '../ids.js';
import type { Staff } from '../staff/staff-gate.js';
import { getGrant, grantApproval, grantPut, type StoredGrant } from '../store/staff-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { APPROVAL_WITHIN_SECONDS } from './approver-rules.js';

// A grant (API contract 3.14, round 6): what one admin asked that another admin approves, a role
// (employees/approve) or a change of the company's security settings (company/approve). Approved
// once, by a write conditional on it still awaiting and unexpired, in the transaction that applies it.

/** How long a grant stays stored after its approval window (its TTL); the staff record keeps what happened for good. */
const GRANT_KEPT_SECONDS = 30 * 24 * 3600;

/** A grant asked now by `staff`, awaiting another admin's approval for APPROVAL_WITHIN_SECONDS, and its write (label `grant`). */
export function newGrant(
  app: App,
  staff: Staff,
  what: Pick<StoredGrant, 'kind' | 'user_id' | 'role' | 'from_role' | 'settings' | 'setting_names'>,
): { grant: StoredGrant; write: LabelledItem<'grant'> } {
  const now = epochSeconds(app.clock);
  const expiresAt = now + APPROVAL_WITHIN_SECONDS;
  const grant: StoredGrant = {
    grant_id: newId(),
    company_id: staff.record.company_id,
    requested_by: staff.userId,
    requested_at: now,
    expires_at: expiresAt,
    status: 'pending',
    ...what,
    ttl: expiresAt + GRANT_KEPT_SECONDS,
  };
  return { grant, write: { label: 'grant', item: grantPut(app.table, grant) } };
}

/** 404 code 6 on grant_id: unknown, of another company (its key holds the company), another kind, used, or void. */
export const noSuchGrant = () => fieldError('NOT_FOUND', 'grant_id', 'is no grant of this company awaiting approval');

/** Whether a grant still awaits its approval: pending and unexpired. */
export function awaits(grant: Pick<StoredGrant, 'status' | 'expires_at'>, nowSeconds: number): boolean {
  return grant.status === 'pending' && grant.expires_at > nowSeconds;
}

/**
 * The grant a call names, of this kind and still awaiting; or, for a retry of this approver's own
 * approval (its answer lost), the grant as approved, `approved` set. Anything else: 404 code 6.
 */
export async function grantToApprove(
  app: App,
  staff: Staff,
  grantId: string,
  kind: StoredGrant['kind'],
): Promise<{ grant: StoredGrant; approved: boolean }> {
  const grant = await getGrant(app.table, staff.record.company_id, grantId);
  if (grant?.kind !== kind) throw noSuchGrant();
  if (grant.status === 'approved' && grant.approved_by === staff.userId) return { grant, approved: true };
  if (!awaits(grant, epochSeconds(app.clock))) throw noSuchGrant();
  return { grant, approved: false };
}

/** The approval's write for its transaction: once only, and only while unexpired (label `grant`). */
export function approvalOf(app: App, staff: Staff, grant: StoredGrant): LabelledItem<'grant'> {
  return {
    label: 'grant',
    item: grantApproval(app.table, grant.company_id, grant.grant_id, { approverId: staff.userId, nowSeconds: epochSeconds(app.clock) }),
  };
}
