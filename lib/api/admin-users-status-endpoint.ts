import { userStatusSetBody } from '../admin/user-status-set-input.js';
import { userStatusSetResult } from '../admin/user-status-set-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { recordUseAndEndSessions, STAFF_FREEZE, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersStatusEndpoint = {
  operationId: 'adminUsersStatus',
  method: 'POST',
  path: '/wallet/v3/admin/users/status',
  summary: 'Disable a user (support, admin) or enable a disabled one (admin)',
  tag: 'admin',
  description: (config) =>
    '"disabled": an active user becomes status_id 2 and every session of theirs ends (session.ended reason ' +
    '"disabled"); no login code or session is given to them until enabled. The company’s last active admin is not ' +
    'disabled (409 code 21). "active" (admin only, on a fresh strong session; support: 403 code 5): a disabled user ' +
    'becomes 1 again (the event user.enabled). No other status is set here: a user who is not active (to disable) or ' +
    'not disabled (to enable), such as one deleted, is 409 code 23. The user gets a security notice (event 8, changed ' +
    'by support). Staff act on other users only, and only an admin on an employee (403 code 5). ' +
    staffSessionRule(config, 'a role') +
    ' To enable: the admin role, the session proven under ' +
    `${duration(config.stepUpMaxAgeSeconds)} ago (else data.needs "strong_fresh").`,
  auth: 'required',
  body: userStatusSetBody,
  result: userStatusSetResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'LAST_ADMIN', 'STATE_CONFLICT'],
  examples: {
    request: { user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8', status: 'disabled', reason: 'ticket 5521: account takeover reported' },
    result: { message: 'User disabled', status_id: 2, revoked: 1 },
  },
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim'] },
      { actions: ['Query'], keys: ['session'] },
      // The status alone (from the status read, no session granted meanwhile), on the user and on the phone claim they hold.
      { actions: ['UpdateItem'], keys: ['user', 'unreadCount'], attributes: ['status_id', 'updated_at', 'session_version', ...UNREAD] },
      { actions: ['UpdateItem'], keys: ['phoneClaim'], attributes: ['status_id', 'user_id'] },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      // The company's count of active admins: a disabled admin's seat given up, an enabled one's taken, another employee's checked absent.
      { actions: ['DeleteItem', 'PutItem', 'ConditionCheckItem'], keys: ['adminSeat'] },
      { actions: ['UpdateItem'], keys: ['adminCount'] },
      ...STAFF_FREEZE,
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
