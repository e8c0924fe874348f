import { userPhoneChangeCancel } from '../lib/account/phone-change-cancel.js';
import { userPhoneChangeCancelEndpoint } from '../lib/api/user-phone-change-cancel-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/user/phone/change/cancel (API contract 3.11)
export const userPhoneChangeCancelHandler = (app: App) =>
  apiHandler(app, userPhoneChangeCancelEndpoint, (call) => userPhoneChangeCancel(app, call));

export const handler = lambdaFunction(userPhoneChangeCancelHandler);
