import { userPhoneChange } from '../lib/account/phone-change.js';
import { userPhoneChangeEndpoint } from '../lib/api/user-phone-change-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/user/phone/change (API contract 3.11)
export const userPhoneChangeHandler = (app: App) => {
  // One per container, as login_phone's: the warning to the old number takes the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, userPhoneChangeEndpoint, (call) => userPhoneChange(app, call, texts));
};

export const handler = lambdaFunction(userPhoneChangeHandler);
