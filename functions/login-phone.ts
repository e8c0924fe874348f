import { loginPhoneEndpoint } from '../lib/api/login-phone-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler, lambdaFunction } from '../lib/http/api-handler.js';
import { loginPhone } from '../lib/otp/login-phone.js';
import { createSmsSender } from '../lib/sms/sms-sender.js';

// POST /wallet/v3/auth/login_phone (API contract 3.2)
export const loginPhoneHandler = (app: App, sms = createSmsSender(app.config)) =>
  apiHandler(app, loginPhoneEndpoint, ({ body, company, principal, origin }) => loginPhone(app, sms, company, body, principal, origin));

export const handler = lambdaFunction(loginPhoneHandler);
