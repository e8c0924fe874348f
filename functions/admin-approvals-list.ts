import { approvalsList } from '../lib/admin/approvals-list.js';
import { adminApprovalsListEndpoint } from '../lib/api/admin-approvals-list-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/approvals/list (API contract 3.14, round 6)
export const adminApprovalsListHandler = (app: App) => apiHandler(app, adminApprovalsListEndpoint, (call) => approvalsList(app, call));

export const handler = lambdaFunction(adminApprovalsListHandler);
