import { userRestoreBody } from '../admin/user-restore-input.js';
import { userRestoreResult } from '../admin/user-restore-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordSessionUse, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersRestoreEndpoint = {
  operationId: 'adminUsersRestore',
  method: 'POST',
  path: '/wallet/v3/admin/users/restore',
  summary: 'Undo a user’s deletion before its erasure (support, admin)',
  tag: 'admin',
  description: (config) =>
    'As npm run user:restore: a user who deleted the account and is not erased yet is active again, with their ' +
    'phone and email taken back (event user.restored); their sessions and devices stay ended (a restored admin is ' +
    'an active admin again). A phone or email someone registered since: 409 code 7 naming "phone" or "email". A user ' +
    'not awaiting erasure, or past its erase_after (even if the eraser has not run yet): 409 code 23. The user gets a ' +
    'security notice (event 8, changed by support). Staff act on other users only, and only an admin on an employee ' +
    '(403 code 5). ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: userRestoreBody,
  result: userRestoreResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'ALREADY_REGISTERED', 'STATE_CONFLICT'],
  examples: {
    request: { user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8', reason: 'ticket 6120: deleted by mistake' },
    result: { message: 'User restored', status_id: 1 },
  },
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user'] },
      // Active again (from this deletion only), its claims taken back, off the due list.
      {
        actions: ['UpdateItem'],
        keys: ['user', 'unreadCount'],
        attributes: ['status_id', 'updated_at', 'erase_after', 'deleted_at', 'deleted_device_keys', ...UNREAD],
      },
      { actions: ['PutItem'], keys: ['phoneClaim', 'emailClaim', 'staffAction', 'notification'] },
      { actions: ['DeleteItem'], keys: ['erasureDue'] },
      // A restored admin is an active admin again: a seat, one more in the count.
      { actions: ['PutItem'], keys: ['adminSeat'] },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
