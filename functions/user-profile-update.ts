import { userProfileUpdate } from '../lib/account/profile-update.js';
import { userProfileUpdateEndpoint } from '../lib/api/user-profile-update-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/user/profile/update (API contract 3.11; names, birth date and email held from an SMS-strength session, 3.15)
export const userProfileUpdateHandler = (app: App) => {
  // One per container: a held change warns the number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, userProfileUpdateEndpoint, (call) => userProfileUpdate(app, call, texts));
};

export const handler = lambdaFunction(userProfileUpdateHandler);
