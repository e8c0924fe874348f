import { companyUpdate } from '../lib/admin/company-update.js';
import { adminCompanyUpdateEndpoint } from '../lib/api/admin-company-update-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/company/update (API contract 3.14)
export const adminCompanyUpdateHandler = (app: App) => apiHandler(app, adminCompanyUpdateEndpoint, (call) => companyUpdate(app, call));

export const handler = lambdaFunction(adminCompanyUpdateHandler);
