import { passkeysRegisterEndpoint } from '../lib/api/passkeys-register-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { passkeyRegister } from '../lib/passkeys/passkey-registration.js';

// POST /wallet/v3/auth/passkeys/register (API contract 3.16)
export const passkeysRegisterHandler = (app: App) => apiHandler(app, passkeysRegisterEndpoint, (call) => passkeyRegister(app, call));

export const handler = lambdaFunction(passkeysRegisterHandler);
