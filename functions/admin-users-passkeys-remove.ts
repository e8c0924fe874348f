import { userPasskeyRemove } from '../lib/admin/user-passkey-remove.js';
import { adminUsersPasskeysRemoveEndpoint } from '../lib/api/admin-users-passkeys-remove-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/admin/users/passkeys/remove (API contract 3.15, second reading; 3.16)
export const adminUsersPasskeysRemoveHandler = (app: App) =>
  apiHandler(app, adminUsersPasskeysRemoveEndpoint, (call) => userPasskeyRemove(app, call));

export const handler = lambdaFunction(adminUsersPasskeysRemoveHandler);
