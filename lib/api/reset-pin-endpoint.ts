import { duration, type Endpoint } from '../http/endpoint.js';
import { changePinResult } from '../pins/change-pin-result.js';
import { resetPinBody } from '../pins/reset-pin-input.js';
import { holdOrEndPinChange, keepAnswers, readCompanyAndSession, USE_PHONE_PROOF } from './grant-parts.js';

export const resetPinEndpoint = {
  operationId: 'resetPin',
  method: 'POST',
  path: '/wallet/v3/auth/reset_pin',
  summary: 'Reset a forgotten or locked PIN, proving the phone',
  tag: 'auth',
  description: ({ pinResetOtpSessionSeconds }) =>
    'Sets a new login PIN (pin_type 1) or transaction PIN (2) without the current one, on proof of the phone: a ' +
    'phone_verification_token (otp_type 2) verified while presenting this user’s token, or a presenting session that began by ' +
    `OTP login less than ${duration(pinResetOtpSessionSeconds)} ago. Without either: 400 code 14. Clears that PIN's count and ` +
    'lock; every other session of the user ends.',
  // A PIN checked against its scrypt hash is CPU-bound: 1,024 MB buys the CPU share its figures
  // in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'required',
  body: resetPinBody,
  result: changePinResult,
  errors: ['PHONE_NOT_VERIFIED', 'FORBIDDEN'],
  examples: {
    request: { pin_type: 1, new_pin: '8052' },
    result: { message: 'PIN reset', revoked: 1 },
  },
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['pendingChange', 'pinTries'] },
      { actions: ['UpdateItem'], keys: ['user', 'unreadCount'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      USE_PHONE_PROOF,
      { actions: ['PutItem'], keys: ['notification'] },
      // From an SMS-strength session the new PIN waits (contract 3.15); from a strong one it supersedes a reset that waited.
      ...holdOrEndPinChange,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
