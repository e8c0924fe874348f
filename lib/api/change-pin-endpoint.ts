import type { Endpoint } from '../http/endpoint.js';
import { changePinBody } from '../pins/change-pin-input.js';
import { changePinResult } from '../pins/change-pin-result.js';

export const changePinEndpoint = {
  operationId: 'changePin',
  method: 'POST',
  path: '/wallet/v3/auth/change_pin',
  summary: 'Change a PIN, knowing the current one',
  tag: 'auth',
  description: ({ pinMaxFailures }) =>
    'Changes the login PIN (pin_type 1) or the transaction PIN (2). A wrong current_pin is 400 code 17 with attempts_left and ' +
    `counts toward that PIN's lock (${pinMaxFailures} in a row: code 18). new_pin follows the rules of registration and differs ` +
    'from current_pin. Every other session of the user ends; a PIN login that compared the old PIN gets no session.',
  // A PIN checked against its scrypt hash is CPU-bound: 1,024 MB buys the CPU share its figures
  // in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'required',
  body: changePinBody,
  result: changePinResult,
  errors: ['PIN_INVALID', 'PIN_LOCKED', 'FORBIDDEN'],
  examples: {
    request: { pin_type: 1, current_pin: '2580', new_pin: '8052' },
    result: { message: 'PIN changed', revoked: 1 },
  },
} as const satisfies Endpoint;
