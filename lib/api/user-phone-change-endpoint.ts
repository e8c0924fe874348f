import { FRESH_LOGIN_SECONDS } from '../account/fresh-login.js';
import { userPhoneChangeBody } from '../account/phone-change-input.js';
import { userPhoneChangeResult } from '../account/phone-change-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';

export const userPhoneChangeEndpoint = {
  operationId: 'userPhoneChange',
  method: 'POST',
  path: '/wallet/v3/user/phone/change',
  summary: 'Move the token user to a new, proven phone number',
  tag: 'account',
  description: () =>
    'Moves the account to a new number, on two proofs: a phone_verification_token (otp_type 2) for the NEW number, verified while ' +
    'presenting this user’s token, and a presenting session that began by OTP or PIN login less than ' +
    `${duration(FRESH_LOGIN_SECONDS)} ago. Without either, or with a proof that is unknown, used, expired, for another number or ` +
    'got without this user’s token: 400 code 14. A number another active user holds: 409 code 7, unless that user never proved it ' +
    '(then it is reclaimed from them, as a registration would). In one write the new number is claimed, the old one freed, ' +
    'phone_verified becomes 1, a security notification (event 6) is written and every other session of the user ends. The old ' +
    'number is then told by SMS that the account moved (a text with no code), and gets no login code any more.',
  auth: 'required',
  body: userPhoneChangeBody,
  result: userPhoneChangeResult,
  errors: ['PHONE_NOT_VERIFIED', 'ALREADY_REGISTERED'],
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', phone_verification_token: 'q3Zk0uJ8yVtq0l2b6c9X1sFhR4mN7pWd' },
    result: { message: 'Phone number changed', revoked: 1 },
  },
} as const satisfies Endpoint;
