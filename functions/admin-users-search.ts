import { userSearch } from '../lib/admin/user-search.js';
import { adminUsersSearchEndpoint } from '../lib/api/admin-users-search-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/search (API contract 3.14)
export const adminUsersSearchHandler = (app: App) => apiHandler(app, adminUsersSearchEndpoint, (call) => userSearch(app, call));

export const handler = lambdaFunction(adminUsersSearchHandler);
