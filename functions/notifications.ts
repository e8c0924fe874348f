import { notificationsEndpoint } from '../lib/api/notifications-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { notifications } from '../lib/notifications/notifications.js';

// GET /wallet/v3/notifications (API contract 3.9)
export const notificationsHandler = (app: App) => apiHandler(app, notificationsEndpoint, (call) => notifications(app, call));

export const handler = lambdaFunction(notificationsHandler);
