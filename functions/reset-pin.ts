import { resetPinEndpoint } from '../lib/api/reset-pin-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { resetPin } from '../lib/pins/reset-pin.js';

// POST /wallet/v3/auth/reset_pin (API contract 3.7)
export const resetPinHandler = (app: App) => apiHandler(app, resetPinEndpoint, (call) => resetPin(app, call));

export const handler = lambdaFunction(resetPinHandler);
