import { userProfile } from '../lib/account/profile-read.js';
import { userProfileEndpoint } from '../lib/api/user-profile-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// GET /wallet/v3/user/profile (API contract 3.11)
export const userProfileHandler = (app: App) => apiHandler(app, userProfileEndpoint, (call) => userProfile(app, call));

export const handler = lambdaFunction(userProfileHandler);
