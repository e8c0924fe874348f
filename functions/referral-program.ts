import { referralProgramEndpoint } from '../lib/api/referral-program-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { referralProgram } from '../lib/referrals/referral-program.js';

// GET /wallet/v3/reward_promotion/referral_program (API contract 3.4)
export const referralProgramHandler = (app: App) => apiHandler(app, referralProgramEndpoint, (call) => referralProgram(app, call));

export const handler = lambdaFunction(referralProgramHandler);
