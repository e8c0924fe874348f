import { companyApproveBody } from '../admin/company-approve-input.js';
import { companyUpdateResult } from '../admin/company-update-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { sampleCompanySettings } from './admin-company-view-endpoint.js';
import { COMPANY_SETTINGS, GRANT_APPROVAL, recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminCompanyApproveEndpoint = {
  operationId: 'adminCompanyApprove',
  method: 'POST',
  path: '/wallet/v3/admin/company/approve',
  summary: 'Apply a change of the security settings another admin asked for (admin)',
  tag: 'admin',
  description: (config) =>
    'Another admin than the one who asked applies a change of the company’s security settings (sms_text, ' +
    'sms_countries, phone_change_texts) asked through company/update, which answered pending 1 and this grant_id. ' +
    'The change is checked again against the company as it is now (a text past 2 SMS: 400 code 1, the grant still ' +
    `waits), then applied; every function has it within ${duration(config.companyCacheSeconds)}. Refused (403 code 5) to the ` +
    'admin who asked, to one who registered them or asked for their role (or was made by them), and while the ' +
    `approver has been admin, or the one who asked registered or given their role, less than ${duration(config.admin.approverMinSeconds)}. ` +
    'A grant unknown, of another company, approved already or void (72 hours unapproved): 404 code 6. Recorded as ' +
    `company_approve. ${staffSessionRule(config, 'the admin role', { fresh: true })}`,
  auth: 'required',
  body: companyApproveBody,
  result: companyUpdateResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'STATE_CONFLICT'],
  failureData: ['sms_sizes', 'phone_change_sizes'],
  examples: {
    request: { grant_id: '7c2e9a4b1d3f5e6a8b0c1d2e3f4a5b6c', reason: 'ticket 9121: second admin for the Hindi text' },
    result: {
      message: 'Company settings updated: every function has them within 30 seconds',
      in_force_within_seconds: 30,
      pending: 0,
      grant_id: '7c2e9a4b1d3f5e6a8b0c1d2e3f4a5b6c',
      ...sampleCompanySettings,
    },
  },
  // Another admin applies a change of the security settings: the grant marked approved (once, while
  // unexpired) with the settings' attributes, as company/update writes them; the one who asked read.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'grant'] },
      { actions: ['UpdateItem'], keys: ['grant'], attributes: GRANT_APPROVAL },
      { actions: ['UpdateItem'], keys: ['company'], attributes: COMPANY_SETTINGS },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
