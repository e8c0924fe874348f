import { type Endpoint } from './endpoint.js';
import { sendCodeBody } from '../otp/otp-input.js';
import { sendCodeResult } from '../otp/otp-results.js';

export const sendCodeEndpoint = {
  operationId: 'sendLoginCode',
  method: 'POST',
  path: '/wallet/v3/auth/login_phone',
  summary: 'Send a one-time code by SMS',
  description:
    'Sends a 6-digit code, valid 5 minutes, to the phone. otp_type: 1 login, 2 phone verification, ' +
    "3 wallet top-up, 4 KYC document; 3 and 4 need the phone owner's token. A login code for an " +
    'unregistered phone gets the same answer and sends nothing. Limits: one send per 60 s and 5 per ' +
    'hour per phone, and an hourly ceiling per company; over a limit: 429 with Retry-After.',
  auth: 'optional',
  body: sendCodeBody,
  result: sendCodeResult,
  errors: ['FORBIDDEN', 'TOO_MANY_REQUESTS'],
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1 },
    result: { message: 'OTP sent to your mobile number', expires_in: 300 },
  },
} as const satisfies Endpoint;
