import { loginPinEndpoint } from '../lib/api/login-pin-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { loginPin } from '../lib/pins/login-pin.js';

// POST /wallet/v3/auth/login_pin (API contract 3.6)
export const loginPinHandler = (app: App) => apiHandler(app, loginPinEndpoint, (call) => loginPin(app, call));

export const handler = lambdaFunction(loginPinHandler);
