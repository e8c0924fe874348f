import { resetPinEndpoint } from '../lib/api/reset-pin-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { resetPin } from '../lib/pins/reset-pin.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/auth/reset_pin (API contract 3.7)
export const resetPinHandler = (app: App) => {
  // One per container, as login_phone's: a held change warns the number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, resetPinEndpoint, (call) => resetPin(app, call, texts));
};

export const handler = lambdaFunction(resetPinHandler);
