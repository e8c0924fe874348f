import { sendCodeEndpoint } from '../lib/api/send-code-endpoint.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { sendCode } from '../lib/otp/send-code.js';

// POST /wallet/v3/auth/login_phone (API contract 3.2)
export const handler = apiHandler(sendCodeEndpoint, ({ body, company, principal }) => sendCode(company, body, principal));
