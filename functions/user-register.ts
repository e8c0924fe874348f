import { apiHandler } from '../lib/http/api-handler.js';
import { registrationBody } from '../lib/users/registration-input.js';
import { registerUser } from '../lib/users/register-user.js';

// POST /wallet/v3/auth/user_register (API contract 3.1)
export const handler = apiHandler({ auth: 'optional', body: registrationBody }, ({ body, company, principal }) =>
  registerUser(company, body, principal),
);
