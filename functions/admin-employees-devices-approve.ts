import { employeeDeviceApprove } from '../lib/admin/employee-device-approve.js';
import { adminEmployeesDevicesApproveEndpoint } from '../lib/api/admin-employees-devices-approve-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/employees/devices/approve (API contract 3.14, second reading)
export const adminEmployeesDevicesApproveHandler = (app: App) =>
  apiHandler(app, adminEmployeesDevicesApproveEndpoint, (call) => employeeDeviceApprove(app, call));

export const handler = lambdaFunction(adminEmployeesDevicesApproveHandler);
