import { userStatusSet } from '../lib/admin/user-status-set.js';
import { adminUsersStatusEndpoint } from '../lib/api/admin-users-status-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/status (API contract 3.14)
export const adminUsersStatusHandler = (app: App) => apiHandler(app, adminUsersStatusEndpoint, (call) => userStatusSet(app, call));

export const handler = lambdaFunction(adminUsersStatusHandler);
