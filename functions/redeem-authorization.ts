import type { App } from '../lib/app.js';
import { redeemAuthorization } from '../lib/authorizations/redeem-authorization.js';
import { redeemAuthorizationPayload } from '../lib/authorizations/redeem-authorization-payload.js';
import { invokedHandler } from '../lib/invoke/invoked-handler.js';
import { invokedFunction } from '../lib/lambda-entry.js';

// redeemAuthorization (API contract 3.8): no HTTP route; the payment service invokes it through the
// Lambda API. The invocation's id marks the redeem, so a write the SDK retried keeps its outcome.
export const redeemAuthorizationHandler = (app: App) =>
  invokedHandler(app, redeemAuthorizationPayload, (payment, context) => redeemAuthorization(app, payment, context.awsRequestId));

export const handler = invokedFunction(redeemAuthorizationHandler);
