import { type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { loginPinBody } from '../pins/login-pin-input.js';
import { loginPinResult } from '../pins/login-pin-result.js';

export const loginPinEndpoint = {
  operationId: 'loginPin',
  method: 'POST',
  path: '/wallet/v3/auth/login_pin',
  summary: 'Log in by PIN on a bound device',
  tag: 'auth',
  description: ({ pinLoginWindowSeconds, pinMaxFailures }) =>
    'Logs in on a device bound by user_register or verify_otp (device_public_key), without SMS. The device signs ' +
    '"login_pin\\n<company id, lowercase>\\n<device_key>\\n<timestamp>\\n<nonce>" (ECDSA P-256 / SHA-256, base64 DER or raw r||s). ' +
    `An unknown or removed device, a bad signature, a timestamp more than ${pinLoginWindowSeconds} s from the server's clock or ` +
    'a nonce used before on the device: 401, and the PIN is not looked at. A wrong PIN: 400 code 17 with attempts_left; ' +
    `after ${pinMaxFailures} wrong login PINs in a row (over all the user's devices): 400 code 18 until an OTP login or reset_pin. ` +
    'The session is bound to the device: removing the device ends it.',
  // A PIN checked against its scrypt hash is CPU-bound: 1,024 MB buys the CPU share its figures
  // in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'none',
  body: loginPinBody,
  result: loginPinResult,
  errors: ['UNAUTHORIZED', 'PIN_INVALID', 'PIN_LOCKED', 'FORBIDDEN'],
  answersCredential: true,
  examples: {
    request: {
      device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
      login_pin: '2580',
      timestamp: 1767225600,
      nonce: 'b3K9xQ2mV7pL1sT8',
      signature: 'MEUCIQDp1x2Rz9mK8nB3vC5tY7uW0qL4sE6hJ2gF1aD9cX3bZwIgQ5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5bN8mQ1wE4rT=',
    },
    result: { message: 'Logged in successfully', ...sampleTokens, user_id: sampleUserId },
  },
} as const satisfies Endpoint;
