import { companyApprove } from '../lib/admin/company-approve.js';
import { adminCompanyApproveEndpoint } from '../lib/api/admin-company-approve-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/company/approve (API contract 3.14, round 6)
export const adminCompanyApproveHandler = (app: App) => apiHandler(app, adminCompanyApproveEndpoint, (call) => companyApprove(app, call));

export const handler = lambdaFunction(adminCompanyApproveHandler);
