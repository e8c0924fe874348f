import { devicesRemoveEndpoint } from '../lib/api/devices-remove-endpoint.js';
import type { App } from '../lib/app.js';
import { devicesRemove } from '../lib/devices/devices-remove.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/auth/devices/remove (API contract 3.6)
export const devicesRemoveHandler = (app: App) => apiHandler(app, devicesRemoveEndpoint, (call) => devicesRemove(app, call));

export const handler = lambdaFunction(devicesRemoveHandler);
