import { userProfileUpdate } from '../lib/account/profile.js';
import { userProfileUpdateEndpoint } from '../lib/api/user-profile-update-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';

// POST /wallet/v3/user/profile/update (API contract 3.11)
export const userProfileUpdateHandler = (app: App) => apiHandler(app, userProfileUpdateEndpoint, (call) => userProfileUpdate(app, call));

export const handler = lambdaFunction(userProfileUpdateHandler);
