import { devicesEndpoint } from '../lib/api/devices-endpoint.js';
import type { App } from '../lib/app.js';
import { devices } from '../lib/devices/devices.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// GET /wallet/v3/auth/devices (API contract 3.6)
export const devicesHandler = (app: App) => apiHandler(app, devicesEndpoint, (call) => devices(app, call));

export const handler = lambdaFunction(devicesHandler);
