import type { App } from '../app-context.js';
import { updateCompanySettings } from '../companies/companies.js';
import { SmsTextRefused } from '../sms/sms-text.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { getCompany } from '../store/company-store.js';
import { ConditionsFailed } from '../store/transactions.js';
import { requireApprover } from './approver-rules.js';
import type { CompanyApproveCall } from './company-approve-input.js';
import { appliedAnswer, refusedText, settingsOf } from './company-update.js';
import type { CompanyUpdateInput } from './company-update-input.js';
import type { CompanyUpdateResult } from './company-update-result.js';
import { approvalOf, grantToApprove, noSuchGrant } from './grants.js';

// POST /wallet/v3/admin/company/approve (API contract 3.14, round 6): another admin applies a change
// of the security settings another admin asked for (company-update.ts, security-settings.ts), by the
// approver rules of dual control. The change is checked again against the company as it is now (a
// rename since may have pushed a text past 2 SMS: 400 code 1, and the grant still waits), and
// applied with the grant's approval (once, while unexpired) and the record, in one transaction.

export async function companyApprove(app: App, call: CompanyApproveCall): Promise<CompanyUpdateResult> {
  const staff = await requireStaff(app, call.principal, ['admin'], { fresh: true });
  const { grant, approved } = await grantToApprove(app, staff, call.body.grant_id, 'company');
  const companyId = grant.company_id;
  if (approved) return appliedAnswer(app, (await getCompany(app.table, companyId, true))!, grant.grant_id);
  await requireApprover(app, staff, { starterId: grant.requested_by, field: 'grant_id' });
  const asked = { ...(grant.settings as Omit<CompanyUpdateInput, 'reason'>), reason: call.body.reason };
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'company_approve',
    reason: call.body.reason,
    details: { grant_id: grant.grant_id, settings: (grant.setting_names ?? []).join(' '), asked_by: grant.requested_by },
  });
  let updated: Awaited<ReturnType<typeof updateCompanySettings>>;
  try {
    updated = await updateCompanySettings(app.table, app.clock, companyId, settingsOf(asked), app.config.otp.ttlSeconds, [
      approvalOf(app, staff, grant),
      ...writes,
    ]);
  } catch (error) {
    if (error instanceof SmsTextRefused) {
      auditStaffAction(app, call.origin, record, 'refused');
      throw refusedText(error, asked);
    }
    // Approved by another admin meanwhile, or void.
    if (error instanceof ConditionsFailed && error.labels.includes('grant')) throw noSuchGrant();
    throw error;
  }
  auditStaffAction(app, call.origin, record, 'approved');
  return appliedAnswer(app, updated.company, grant.grant_id);
}
