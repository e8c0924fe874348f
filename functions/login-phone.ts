import { apiHandler } from '../lib/http/api-handler.js';
import { sendCodeBody } from '../lib/otp/otp-input.js';
import { sendCode } from '../lib/otp/send-code.js';

// POST /wallet/v3/auth/login_phone (API contract 3.2)
export const handler = apiHandler({ auth: 'optional', body: sendCodeBody }, ({ body, company, principal }) =>
  sendCode(company, body, principal),
);
