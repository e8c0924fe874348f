import { duration, type Endpoint } from '../http/endpoint.js';
import { loginPhoneBody } from '../otp/login-phone-input.js';
import { loginPhoneResult } from '../otp/login-phone-result.js';
import { keepAnswers, readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const loginPhoneEndpoint = {
  operationId: 'loginPhone',
  method: 'POST',
  path: '/wallet/v3/auth/login_phone',
  summary: 'Send a one-time code by SMS',
  tag: 'auth',
  description: ({ otp }) =>
    `Sends a 6-digit code, valid ${duration(otp.ttlSeconds)}, to the phone. otp_type: 1 login, 2 phone verification, ` +
    "3 wallet top-up, 4 KYC document; 3 and 4 need the phone owner's token. A login code for a phone with no " +
    'active user gets the same answer and sends nothing. Only mobile lines in the company’s countries get SMS ' +
    '(code 15 otherwise, nothing spent). Limits (429 with Retry-After): one send per ' +
    `${duration(otp.sendIntervalSeconds)} and ${otp.sendsPerPhonePerHour} per hour per phone; ` +
    `${otp.sendsPerAddressPerHour || 'no limit of'} send requests per hour per source address; ` +
    `${otp.sendsPerPrefixPerHour || 'no limit of'} sends per hour to one number range and ${otp.sendsPerCompanyPerHour} per company; ` +
    `none to a phone with ${otp.failuresPerPhone} wrong codes in ${duration(otp.failureWindowSeconds)}. ` +
    'The address, range and company limits are defaults: a company may have its own.',
  // The size its figures in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'optional',
  body: loginPhoneBody,
  result: loginPhoneResult,
  errors: ['FORBIDDEN', 'TOO_MANY_REQUESTS', 'SMS_DESTINATION_NOT_ALLOWED'],
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1 },
    result: { message: 'OTP sent to your mobile number', expires_in: 300 },
  },
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['phoneClaim', 'phoneFailures'] },
      // A user's pending phone change to the number, once due, gets the code (its index, the user, the change;
      // the holder, when the number is held, to see whether the completion reclaims it).
      { actions: ['GetItem'], keys: ['phoneChangeIndex', 'user', 'pendingChange'] },
      { actions: ['UpdateItem'], keys: ['addressLimit', 'phoneSendLimit', 'companySendLimit', 'prefixSendLimit'] },
      { actions: ['PutItem'], keys: ['otp', 'phoneSendLimit'] },
      // A text that could not be queued gives the phone's count back (its counters as before, or
      // none) and takes its code away.
      { actions: ['DeleteItem'], keys: ['phoneSendLimit', 'otp'] },
      recordSessionUse,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
