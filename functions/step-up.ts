import { stepUpEndpoint } from '../lib/api/step-up-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { stepUp } from '../lib/step-up/step-up.js';

// POST /wallet/v3/auth/step_up (API contract 3.15, second reading)
export const stepUpHandler = (app: App) => apiHandler(app, stepUpEndpoint, (call) => stepUp(app, call));

export const handler = lambdaFunction(stepUpHandler);
