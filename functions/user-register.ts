import { userRegisterEndpoint } from '../lib/api/user-register-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { userRegister } from '../lib/registration/user-register.js';

// POST /wallet/v3/auth/user_register (API contract 3.1)
export const userRegisterHandler = (app: App) => apiHandler(app, userRegisterEndpoint, (call) => userRegister(app, call));

export const handler = lambdaFunction(userRegisterHandler);
