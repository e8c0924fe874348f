import { verifyOtpEndpoint } from '../lib/api/verify-otp-endpoint.js';
import type { App } from '../lib/app.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { lambdaFunction } from '../lib/lambda-entry.js';
import { verifyOtp } from '../lib/otp/verify-otp.js';
import { textDispatchFor } from '../lib/sms/sms-delivery.js';

// POST /wallet/v3/auth/verify_otp (API contract 3.3)
export const verifyOtpHandler = (app: App) => {
  // One per container: a login that completes a pending phone change warns the old number by the codes' path.
  const texts = textDispatchFor(app);
  return apiHandler(app, verifyOtpEndpoint, (call) => verifyOtp(app, call, texts));
};

export const handler = lambdaFunction(verifyOtpHandler);
