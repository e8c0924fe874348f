import { userExport } from '../lib/account/export.js';
import { userExportEndpoint } from '../lib/api/user-export-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// GET /wallet/v3/user/export (API contract 3.11; held from an SMS-strength session, 3.15)
export const userExportHandler = (app: App) => {
  // One per container: a held export warns the number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, userExportEndpoint, (call) => userExport(app, call, texts));
};

export const handler = lambdaFunction(userExportHandler);
