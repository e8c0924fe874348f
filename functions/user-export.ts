import { accountExport } from '../lib/account/export.js';
import { userExportEndpoint } from '../lib/api/user-export-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// GET /wallet/v3/user/export (API contract 3.11)
export const userExportHandler = (app: App) =>
  apiHandler(app, userExportEndpoint, ({ principal }) => accountExport(app, principal.companyId, principal.userId));

export const handler = lambdaFunction(userExportHandler);
