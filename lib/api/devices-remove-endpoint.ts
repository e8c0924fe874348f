import { devicesRemoveBody } from '../devices/devices-remove-input.js';
import { devicesRemoveResult } from '../devices/devices-remove-result.js';
import type { Endpoint } from '../http/endpoint.js';
import {
  checkChangesNotFrozen,
  HOLD_CHANGE,
  keepAndRecallAnswers,
  readCompanyAndSession,
  recordUseAndEndSessions,
  UNREAD,
} from './grant-parts.js';

export const devicesRemoveEndpoint = {
  operationId: 'devicesRemove',
  method: 'POST',
  path: '/wallet/v3/auth/devices/remove',
  summary: 'Remove a bound device',
  tag: 'auth',
  description: () =>
    "Ends one of the token user's device bindings and every session bound to it (a PIN login on it " +
    'racing the removal gets no session). Answers how many sessions ended. A device that is not the user’s: 404.',
  auth: 'required',
  endsOwnSession: true,
  body: devicesRemoveBody,
  result: devicesRemoveResult,
  errors: ['NOT_FOUND', 'FORBIDDEN'],
  examples: {
    request: { device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c' },
    result: { message: 'Device removed', revoked: 1 },
  },
  grants: {
    table: [
      keepAndRecallAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['deviceIndex', 'user'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice'] },
      // One off the user's device count, and nothing else of the user.
      { actions: ['UpdateItem'], keys: ['user'], attributes: ['device_count'] },
      // A settled device removed from an SMS-strength session waits (contract 3.15), with its notice.
      HOLD_CHANGE,
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      checkChangesNotFrozen,
      recordUseAndEndSessions,
    ],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret.
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
