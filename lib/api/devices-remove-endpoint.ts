import { devicesRemoveBody } from '../devices/devices-remove-input.js';
import { devicesRemoveResult } from '../devices/devices-remove-result.js';
import type { Endpoint } from '../http/endpoint.js';

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
} as const satisfies Endpoint;
