import { transactionAuthorizationEndpoint } from '../lib/api/transaction-authorization-endpoint.js';
import type { App } from '../lib/app.js';
import { transactionAuthorization } from '../lib/authorizations/transaction-authorization.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/auth/transaction_authorization (API contract 3.8)
export const transactionAuthorizationHandler = (app: App) =>
  apiHandler(app, transactionAuthorizationEndpoint, (call) => transactionAuthorization(app, call));

export const handler = lambdaFunction(transactionAuthorizationHandler);
