import { userDeviceRemoveBody } from '../admin/user-device-remove-input.js';
import { userDeviceRemoveResult } from '../admin/user-device-remove-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordUseAndEndSessions, STAFF_FREEZE, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersDevicesRemoveEndpoint = {
  operationId: 'adminUsersDevicesRemove',
  method: 'POST',
  path: '/wallet/v3/admin/users/devices/remove',
  summary: 'Remove a bound device of a user (support, admin)',
  tag: 'admin',
  description: (config) =>
    'As the user’s own devices/remove: ends the binding and every session bound to it (a PIN login on it racing ' +
    'the removal gets no session); answers how many sessions ended. The user gets a security notice (event 8, ' +
    'changed by support). A device that is not that user’s, or a user who is not the company’s: 404 code 6. ' +
    'Staff act on other users only, and only an admin on an employee (403 code 5). ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: userDeviceRemoveBody,
  result: userDeviceRemoveResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND'],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
      reason: 'call 8812: phone lost',
    },
    result: { message: 'Device removed', revoked: 1 },
  },
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'deviceIndex'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice'] },
      // One off the user's device count, and nothing else of the user.
      { actions: ['UpdateItem'], keys: ['user', 'unreadCount'], attributes: ['device_count', ...UNREAD] },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      ...STAFF_FREEZE,
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
