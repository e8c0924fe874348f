import { verifyOtpBody } from '../otp/otp-input.js';
import { verifyOtpResult } from '../otp/otp-results.js';
import { type Endpoint, sampleToken, sampleUserId } from './endpoint.js';

export const verifyOtpEndpoint = {
  operationId: 'verifyOtp',
  method: 'POST',
  path: '/wallet/v3/auth/verify_otp',
  summary: 'Verify a one-time code',
  description: ({ otp }) =>
    'Checks a code sent by login_phone. A right login code (otp_type 1) answers a session, like ' +
    `registration; other types answer verified: 1. A code is single use and dies after ${otp.maxAttempts} wrong tries.`,
  auth: 'optional',
  body: verifyOtpBody,
  result: verifyOtpResult,
  errors: ['FORBIDDEN', 'OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED'],
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1, otp: '483920' },
    result: { message: 'Logged in successfully', token: sampleToken, user_id: sampleUserId },
  },
} as const satisfies Endpoint;
