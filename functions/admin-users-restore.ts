import { userRestore } from '../lib/admin/user-restore.js';
import { adminUsersRestoreEndpoint } from '../lib/api/admin-users-restore-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/restore (API contract 3.14)
export const adminUsersRestoreHandler = (app: App) => apiHandler(app, adminUsersRestoreEndpoint, (call) => userRestore(app, call));

export const handler = lambdaFunction(adminUsersRestoreHandler);
