import { passkeysLoginOptionsEndpoint } from '../lib/api/passkeys-login-options-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { passkeyLoginOptions } from '../lib/passkeys/passkey-login-options.js';

// POST /wallet/v3/auth/passkeys/login/options (API contract 3.16)
export const passkeysLoginOptionsHandler = (app: App) =>
  apiHandler(app, passkeysLoginOptionsEndpoint, (call) => passkeyLoginOptions(app, call));

export const handler = lambdaFunction(passkeysLoginOptionsHandler);
