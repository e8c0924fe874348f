import { passkeysLoginEndpoint } from '../lib/api/passkeys-login-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { passkeyLogin } from '../lib/passkeys/passkey-login.js';

// POST /wallet/v3/auth/passkeys/login (API contract 3.16)
export const passkeysLoginHandler = (app: App) => apiHandler(app, passkeysLoginEndpoint, (call) => passkeyLogin(app, call));

export const handler = lambdaFunction(passkeysLoginHandler);
