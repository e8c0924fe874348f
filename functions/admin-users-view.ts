import { userView } from '../lib/admin/user-view.js';
import { adminUsersViewEndpoint } from '../lib/api/admin-users-view-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/view (API contract 3.14)
export const adminUsersViewHandler = (app: App) => apiHandler(app, adminUsersViewEndpoint, (call) => userView(app, call));

export const handler = lambdaFunction(adminUsersViewHandler);
