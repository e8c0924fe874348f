import { logoutEndpoint } from '../lib/api/logout-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { logout } from '../lib/sessions/logout.js';

// POST /wallet/v3/auth/logout (API contract 3.5)
export const logoutHandler = (app: App) => apiHandler(app, logoutEndpoint, (call) => logout(app, call));

export const handler = lambdaFunction(logoutHandler);
