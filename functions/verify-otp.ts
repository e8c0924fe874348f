import { verifyCodeEndpoint } from '../lib/api/verify-code-endpoint.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { verifyCode } from '../lib/otp/verify-code.js';

// POST /wallet/v3/auth/verify_otp (API contract 3.3)
export const handler = apiHandler(verifyCodeEndpoint, ({ body, company, principal }) => verifyCode(company, body, principal));
