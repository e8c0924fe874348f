import { devicesRemoveEndpoint } from '../lib/api/devices-remove-endpoint.js';
import type { App } from '../lib/app.js';
import { devicesRemove } from '../lib/devices/devices-remove.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/auth/devices/remove (API contract 3.6)
export const devicesRemoveHandler = (app: App) => {
  // One per container, as login_phone's: a held removal warns the number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, devicesRemoveEndpoint, (call) => devicesRemove(app, call, texts));
};

export const handler = lambdaFunction(devicesRemoveHandler);
