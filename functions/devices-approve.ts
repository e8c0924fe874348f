import { devicesApproveEndpoint } from '../lib/api/devices-approve-endpoint.js';
import type { App } from '../lib/app.js';
import { devicesApprove } from '../lib/devices/devices-approve.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/auth/devices/approve (API contract 3.15, second reading)
export const devicesApproveHandler = (app: App) => apiHandler(app, devicesApproveEndpoint, (call) => devicesApprove(app, call));

export const handler = lambdaFunction(devicesApproveHandler);
