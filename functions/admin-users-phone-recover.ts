import { startPhoneRecovery } from '../lib/admin/phone-recovery.js';
import { adminUsersPhoneRecoverEndpoint } from '../lib/api/admin-users-phone-recover-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/phone/recover (API contract 3.14)
export const adminUsersPhoneRecoverHandler = (app: App) =>
  apiHandler(app, adminUsersPhoneRecoverEndpoint, (call) => startPhoneRecovery(app, call));

export const handler = lambdaFunction(adminUsersPhoneRecoverHandler);
