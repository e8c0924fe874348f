import { devicesResult } from '../devices/devices-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { readCompanyAndSession, recordUseAndEndSessions } from './grant-parts.js';

export const devicesEndpoint = {
  operationId: 'devices',
  method: 'GET',
  path: '/wallet/v3/auth/devices',
  summary: "List the user's bound devices",
  tag: 'auth',
  description: ({ maxDevicesPerUser }) =>
    "The token user's bound devices, most recently used first, with their labels (never proof), when each was bound " +
    `and last used, and current: 1 for the device of the presenting session. At most ${maxDevicesPerUser} per user: ` +
    'binding one more removes the least recently used.',
  auth: 'required',
  result: devicesResult,
  errors: [],
  examples: {
    result: {
      devices: [
        {
          device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
          device_type: 1,
          device_id: 'abc',
          device_unique_id: 'xyz',
          created_date: 1767225600,
          last_used_date: 1767312000,
          current: 1,
        },
      ],
    },
  },
  grants: {
    table: [
      readCompanyAndSession,
      // The user's devices and pending changes, one Query (its lower bound is the changes').
      { actions: ['Query'], keys: ['pendingChange'] },
      // A held removal that is due, put in place: the device (read, its two items deleted), its
      // sessions ended, the user's count, the change deleted.
      { actions: ['GetItem'], keys: ['deviceIndex'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice', 'pendingChange'] },
      { actions: ['UpdateItem'], keys: ['user'], attributes: ['device_count'] },
      recordUseAndEndSessions,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
