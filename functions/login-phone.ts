import { loginPhoneEndpoint } from '../lib/api/login-phone-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { loginPhone } from '../lib/otp/login-phone.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/auth/login_phone (API contract 3.2)
export const loginPhoneHandler = (app: App) => {
  // One per container: a direct send's times, or the queue's client, are this container's.
  const texts = textDispatchFor(app);
  return apiHandler(app, loginPhoneEndpoint, (call) => loginPhone(app, call, texts));
};

export const handler = lambdaFunction(loginPhoneHandler);
