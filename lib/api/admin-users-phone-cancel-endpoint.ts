import { phoneCancelBody } from '../admin/phone-change-id-input.js';
import { phoneCancelResult } from '../admin/phone-recovery-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { END_CHANGE, recordSessionUse, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersPhoneCancelEndpoint = {
  operationId: 'adminUsersPhoneCancel',
  method: 'POST',
  path: '/wallet/v3/admin/users/phone/cancel',
  summary: 'Cancel a user’s pending phone change or recovery (support, admin)',
  tag: 'admin',
  description: (config) =>
    'Cancels the user’s live pending phone change named by change_id: a recovery (awaiting approval or running) or the user’s ' +
    'own change, such as one a caller reports as not theirs. Notices 10 and 8 in the user’s list, the event ' +
    'user.phone_change_cancelled if it was running. Not the user’s live change: 404 code 6 naming change_id. Staff act on ' +
    'other users only, and only an admin on an employee (403 code 5). ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: phoneCancelBody,
  result: phoneCancelResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND'],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f',
      reason: 'call 8830: the customer did not ask for this',
    },
    result: { message: 'Phone number change cancelled', change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f' },
  },
  // A pending change cancelled by support: marked ended, its index item deleted, notices 10 and 8, the record.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['pendingChange'] },
      {
        actions: ['UpdateItem'],
        keys: ['pendingChange', 'unreadCount'],
        attributes: [...UNREAD, ...END_CHANGE.attributes],
      },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      { actions: ['DeleteItem'], keys: ['phoneChangeIndex', 'awaitingRecovery'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
