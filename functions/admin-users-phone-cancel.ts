import { cancelPhoneChangeBySupport } from '../lib/admin/phone-recovery-cancel.js';
import { adminUsersPhoneCancelEndpoint } from '../lib/api/admin-users-phone-cancel-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/phone/cancel (API contract 3.14)
export const adminUsersPhoneCancelHandler = (app: App) =>
  apiHandler(app, adminUsersPhoneCancelEndpoint, (call) => cancelPhoneChangeBySupport(app, call));

export const handler = lambdaFunction(adminUsersPhoneCancelHandler);
