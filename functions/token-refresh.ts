import { tokenRefreshEndpoint } from '../lib/api/token-refresh-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { tokenRefresh } from '../lib/sessions/token-refresh.js';

// POST /wallet/v3/auth/token/refresh (API contract 3.12)
export const tokenRefreshHandler = (app: App) => apiHandler(app, tokenRefreshEndpoint, (call) => tokenRefresh(app, call));

export const handler = lambdaFunction(tokenRefreshHandler);
