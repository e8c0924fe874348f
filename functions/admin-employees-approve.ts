import { employeesApprove } from '../lib/admin/employees-approve.js';
import { adminEmployeesApproveEndpoint } from '../lib/api/admin-employees-approve-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/employees/approve (API contract 3.14, round 6)
export const adminEmployeesApproveHandler = (app: App) =>
  apiHandler(app, adminEmployeesApproveEndpoint, (call) => employeesApprove(app, call));

export const handler = lambdaFunction(adminEmployeesApproveHandler);
