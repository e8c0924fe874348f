import { loginPhoneEndpoint } from '../lib/api/login-phone-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler, lambdaFunction } from '../lib/http/api-handler.js';
import { loginPhone } from '../lib/otp/login-phone.js';
import { paddedDispatch } from '../lib/sms/text-dispatch.js';

// POST /wallet/v3/auth/login_phone (API contract 3.2)
export const loginPhoneHandler = (app: App) => {
  // One per container: the send times it keeps are this container's.
  const texts = paddedDispatch(app.sms, app.timer, app.config.sms.decoy);
  return apiHandler(app, loginPhoneEndpoint, (call) => loginPhone(app, call, texts));
};

export const handler = lambdaFunction(loginPhoneHandler);
