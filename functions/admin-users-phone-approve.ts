import { approvePhoneRecovery } from '../lib/admin/phone-recovery-approval.js';
import { adminUsersPhoneApproveEndpoint } from '../lib/api/admin-users-phone-approve-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/admin/users/phone/approve (API contract 3.14)
export const adminUsersPhoneApproveHandler = (app: App) => {
  // One per container: the warning to the old number takes the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, adminUsersPhoneApproveEndpoint, (call) => approvePhoneRecovery(app, call, texts));
};

export const handler = lambdaFunction(adminUsersPhoneApproveHandler);
