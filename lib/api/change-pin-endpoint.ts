import type { Endpoint } from '../http/endpoint.js';
import { changePinBody } from '../pins/change-pin-input.js';
import { changePinResult } from '../pins/change-pin-result.js';
import {
  holdOrEndPinChange,
  keepAnswers,
  PIN_DAILY,
  PIN_REHASH,
  PIN_TRIES,
  readCompanyAndSession,
  TRIES_READ_BACK,
  UNREAD,
} from './grant-parts.js';

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
  // A new PIN for either PIN, ending every other session: the current PIN counted (change), a
  // phone proof used up (reset), the PIN's tries cleared, a notice (and one when a wrong PIN locks it).
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      // The user's pending changes (a held PIN of this type, due, is put in place first, its change deleted).
      { actions: ['Query'], keys: ['pendingChange', 'pinTries'] },
      // The current PIN's try (and its hash made again), the new PIN's hash and version, a notice counted unread.
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'user', 'unreadCount'],
        attributes: [
          ...PIN_TRIES,
          ...UNREAD,
          ...PIN_REHASH.login,
          ...PIN_REHASH.transaction,
          'login_pin_version',
          'transaction_pin_version',
          'login_pin_to_set',
          'transaction_pin_to_set',
          'updated_at',
        ],
        returns: TRIES_READ_BACK,
      },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['pinTries', 'pendingChange'] },
      { actions: ['PutItem'], keys: ['notification'] },
      ...PIN_DAILY,
      // From an SMS-strength session the new PIN waits (contract 3.15); from a strong one it supersedes a PIN that waited.
      ...holdOrEndPinChange,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
