import { userDeviceRemove } from '../lib/admin/user-device-remove.js';
import { adminUsersDevicesRemoveEndpoint } from '../lib/api/admin-users-devices-remove-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/devices/remove (API contract 3.14)
export const adminUsersDevicesRemoveHandler = (app: App) =>
  apiHandler(app, adminUsersDevicesRemoveEndpoint, (call) => userDeviceRemove(app, call));

export const handler = lambdaFunction(adminUsersDevicesRemoveHandler);
