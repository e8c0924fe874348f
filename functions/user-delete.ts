import { userDelete } from '../lib/account/delete.js';
import { userDeleteEndpoint } from '../lib/api/user-delete-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/user/delete (API contract 3.11)
export const userDeleteHandler = (app: App) => apiHandler(app, userDeleteEndpoint, (call) => userDelete(app, call));

export const handler = lambdaFunction(userDeleteHandler);
