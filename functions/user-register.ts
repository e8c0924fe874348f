import { registerUserEndpoint } from '../lib/api/register-user-endpoint.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { registerUser } from '../lib/users/register-user.js';

// POST /wallet/v3/auth/user_register (API contract 3.1)
export const handler = apiHandler(registerUserEndpoint, ({ body, company, principal }) => registerUser(company, body, principal));
