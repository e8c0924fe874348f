import { changePinEndpoint } from '../lib/api/change-pin-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { changePin } from '../lib/pins/change-pin.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/auth/change_pin (API contract 3.7)
export const changePinHandler = (app: App) => {
  // One per container, as login_phone's: a held change warns the number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, changePinEndpoint, (call) => changePin(app, call, texts));
};

export const handler = lambdaFunction(changePinHandler);
