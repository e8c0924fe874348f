import { userSessionsEnd } from '../lib/admin/user-sessions-end.js';
import { adminUsersSessionsEndEndpoint } from '../lib/api/admin-users-sessions-end-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/sessions/end (API contract 3.14)
export const adminUsersSessionsEndHandler = (app: App) =>
  apiHandler(app, adminUsersSessionsEndEndpoint, (call) => userSessionsEnd(app, call));

export const handler = lambdaFunction(adminUsersSessionsEndHandler);
