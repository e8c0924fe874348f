import { changePinEndpoint } from '../lib/api/change-pin-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { changePin } from '../lib/pins/change-pin.js';

// POST /wallet/v3/auth/change_pin (API contract 3.7)
export const changePinHandler = (app: App) => apiHandler(app, changePinEndpoint, (call) => changePin(app, call));

export const handler = lambdaFunction(changePinHandler);
