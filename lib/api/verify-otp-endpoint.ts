import { duration, type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { verifyOtpBody } from '../otp/verify-otp-input.js';
import { verifyOtpResult } from '../otp/verify-otp-result.js';

export const verifyOtpEndpoint = {
  operationId: 'verifyOtp',
  method: 'POST',
  path: '/wallet/v3/auth/verify_otp',
  summary: 'Verify a one-time code',
  tag: 'auth',
  description: ({ otp, verificationTokenTtlSeconds }) =>
    'Checks a code sent by login_phone. A right login code (otp_type 1) answers a session, like ' +
    'registration, and marks the user phone-verified; other types answer verified: 1 and a verification_token, ' +
    `the proof that this phone received the code (single use, valid ${duration(verificationTokenTtlSeconds)}), which registration ` +
    'takes as phone_verification_token. A phone-verification code verified with the token of the user holding the ' +
    `phone marks that user phone-verified. A code is single use and dies after ${otp.maxAttempts} wrong tries; a phone ` +
    `locks (code 11) after ${otp.failuresPerPhone} wrong codes in ${duration(otp.failureWindowSeconds)}, whatever the codes; ` +
    `${otp.verifiesPerAddress || 'unlimited'} attempts per ${duration(otp.verifyAddressWindowSeconds)} per source address (429; a company may have its own).`,
  // The size its figures in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'optional',
  body: verifyOtpBody,
  result: verifyOtpResult,
  errors: ['FORBIDDEN', 'OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED', 'TOO_MANY_REQUESTS'],
  answersCredential: true,
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1, otp: '483920' },
    result: { message: 'Logged in successfully', ...sampleTokens, user_id: sampleUserId },
  },
} as const satisfies Endpoint;
