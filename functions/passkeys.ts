import { passkeysEndpoint } from '../lib/api/passkeys-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { passkeys } from '../lib/passkeys/passkeys.js';

// GET /wallet/v3/auth/passkeys (API contract 3.16)
export const passkeysHandler = (app: App) => apiHandler(app, passkeysEndpoint, (call) => passkeys(app, call));

export const handler = lambdaFunction(passkeysHandler);
