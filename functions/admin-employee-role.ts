import { employeeRole } from '../lib/admin/employee-role.js';
import { adminEmployeeRoleEndpoint } from '../lib/api/admin-employee-role-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/employees/role (API contract 3.14)
export const adminEmployeeRoleHandler = (app: App) => apiHandler(app, adminEmployeeRoleEndpoint, (call) => employeeRole(app, call));

export const handler = lambdaFunction(adminEmployeeRoleHandler);
