import { userSecurityNotMeEndpoint } from '../lib/api/user-security-not-me-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { notMe } from '../lib/security/not-me.js';

// POST /wallet/v3/user/security/not_me (API contract 3.15)
export const userSecurityNotMeHandler = (app: App) => apiHandler(app, userSecurityNotMeEndpoint, (call) => notMe(app, call));

export const handler = lambdaFunction(userSecurityNotMeHandler);
