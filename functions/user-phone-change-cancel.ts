import { userPhoneChangeCancelEndpoint } from '../lib/api/user-phone-change-cancel-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { userChangesCancel } from '../lib/pending-changes/user-changes-cancel.js';

// POST /wallet/v3/user/phone/change/cancel (API contract 3.11; since 3.15 it cancels any kind)
export const userPhoneChangeCancelHandler = (app: App) =>
  apiHandler(app, userPhoneChangeCancelEndpoint, (call) => userChangesCancel(app, call));

export const handler = lambdaFunction(userPhoneChangeCancelHandler);
