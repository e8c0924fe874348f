import { userDelete } from '../lib/account/user-delete.js';
import { userDeleteEndpoint } from '../lib/api/user-delete-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/user/delete (API contract 3.11; held from an SMS-strength session, 3.15)
export const userDeleteHandler = (app: App) => {
  // One per container: a held deletion warns the number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, userDeleteEndpoint, (call) => userDelete(app, call, texts));
};

export const handler = lambdaFunction(userDeleteHandler);
