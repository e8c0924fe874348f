import { userChangesCancelEndpoint } from '../lib/api/user-changes-cancel-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { userChangesCancel } from '../lib/pending-changes/user-changes-cancel.js';

// POST /wallet/v3/user/changes/cancel (API contract 3.15)
export const userChangesCancelHandler = (app: App) => apiHandler(app, userChangesCancelEndpoint, (call) => userChangesCancel(app, call));

export const handler = lambdaFunction(userChangesCancelHandler);
