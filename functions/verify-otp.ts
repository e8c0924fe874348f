import { apiHandler } from '../lib/http/api-handler.js';
import { verifyCodeBody } from '../lib/otp/otp-input.js';
import { verifyCode } from '../lib/otp/verify-code.js';

// POST /wallet/v3/auth/verify_otp (API contract 3.3)
export const handler = apiHandler({ auth: 'optional', body: verifyCodeBody }, ({ body, company, principal }) =>
  verifyCode(company, body, principal),
);
