import { passkeysRegisterOptionsEndpoint } from '../lib/api/passkeys-register-options-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { passkeyRegisterOptions } from '../lib/passkeys/passkey-register-options.js';

// POST /wallet/v3/auth/passkeys/register/options (API contract 3.16)
export const passkeysRegisterOptionsHandler = (app: App) =>
  apiHandler(app, passkeysRegisterOptionsEndpoint, (call) => passkeyRegisterOptions(app, call));

export const handler = lambdaFunction(passkeysRegisterOptionsHandler);
