import { notificationsReadEndpoint } from '../lib/api/notifications-read-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { notificationsRead } from '../lib/notifications/notifications-read.js';

// POST /wallet/v3/notifications/read (API contract 3.9)
export const notificationsReadHandler = (app: App) => apiHandler(app, notificationsReadEndpoint, (call) => notificationsRead(app, call));

export const handler = lambdaFunction(notificationsReadHandler);
