import { companyView } from '../lib/admin/company-view.js';
import { adminCompanyViewEndpoint } from '../lib/api/admin-company-view-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/company/view (API contract 3.14)
export const adminCompanyViewHandler = (app: App) => apiHandler(app, adminCompanyViewEndpoint, (call) => companyView(app, call));

export const handler = lambdaFunction(adminCompanyViewHandler);
