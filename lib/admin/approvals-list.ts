import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { getPendingPhoneChange } from '../store/pending-change-store.js';
import { queryAwaitingApproval, type StoredGrant } from '../store/staff-store.js';
import { writeTransaction } from '../store/transactions.js';
import type { ApprovalsListCall } from './approvals-list-input.js';
import type { ApprovalsListResult, ListedGrant } from './approvals-list-result.js';
import { awaits } from './grants.js';

// POST /wallet/v3/admin/approvals/list (API contract 3.14, round 6): what awaits a second admin in
// the company, oldest first: the grants (roles, security settings) and the recoveries, each still
// within its 72 hours. A recovery is listed beside the grants when it starts; the change itself is
// read here, so one cancelled, approved or replaced since is left out. Admins only (only an admin
// approves); recorded as every call of the back office is (action approvals_list).

function listedGrantOf(grant: StoredGrant): ListedGrant {
  return {
    grant_id: grant.grant_id,
    kind: grant.kind,
    requested_by: grant.requested_by,
    requested_at: grant.requested_at,
    approve_by: grant.expires_at,
    ...(grant.kind === 'role' ? { user_id: grant.user_id, role: grant.role, from_role: grant.from_role } : {}),
    ...(grant.kind === 'company' ? { settings: grant.setting_names ?? [], changes: grant.settings ?? {} } : {}),
  };
}

export async function approvalsList(app: App, call: ApprovalsListCall): Promise<ApprovalsListResult> {
  const { companyId } = call.principal;
  const staff = await requireStaff(app, call.principal, ['admin']);
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'approvals_list',
    reason: call.body.reason,
  });
  await writeTransaction(app.table, writes);
  auditStaffAction(app, call.origin, record, 'listed');
  const { grants, recoveries } = await queryAwaitingApproval(app.table, companyId);
  const now = epochSeconds(app.clock);
  const listed = await Promise.all(
    recoveries
      .filter((recovery) => recovery.approve_by > now)
      .map(async (recovery) => {
        const change = await getPendingPhoneChange(app.table, companyId, recovery.user_id, true);
        const awaiting = change?.change_id === recovery.change_id && change.awaiting_approval === 1 && change.ended_reason === undefined;
        return awaiting
          ? {
              change_id: change.change_id,
              user_id: recovery.user_id,
              phone_last4: change.phone_number.slice(-4),
              started_by: recovery.started_by,
              started_at: recovery.started_at,
              approve_by: change.expires_at,
            }
          : undefined;
      }),
  );
  return {
    grants: grants
      .filter((grant) => awaits(grant, now))
      .sort((a, b) => a.requested_at - b.requested_at)
      .map(listedGrantOf),
    recoveries: listed.filter((recovery) => recovery !== undefined).sort((a, b) => a.started_at - b.started_at),
  };
}
