import { passkeysRemoveEndpoint } from '../lib/api/passkeys-remove-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { passkeyRemove } from '../lib/passkeys/passkeys.js';

// POST /wallet/v3/auth/passkeys/remove (API contract 3.16)
export const passkeysRemoveHandler = (app: App) => apiHandler(app, passkeysRemoveEndpoint, (call) => passkeyRemove(app, call));

export const handler = lambdaFunction(passkeysRemoveHandler);
