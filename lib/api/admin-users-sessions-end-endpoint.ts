import { userSessionsEndBody } from '../admin/user-sessions-end-input.js';
import { userSessionsEndResult } from '../admin/user-sessions-end-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordUseAndEndSessions, STAFF_FREEZE, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersSessionsEndEndpoint = {
  operationId: 'adminUsersSessionsEnd',
  method: 'POST',
  path: '/wallet/v3/admin/users/sessions/end',
  summary: 'End one session of a user, or every one (support, admin)',
  tag: 'admin',
  description: (config) =>
    'Ends the session `sid` names, or without it every session of the user: their tokens answer 401 from then ' +
    'on, and each end is published as session.ended with reason "support". The user gets a security notice ' +
    '(event 8, changed by support). An unknown or already ended sid, or a user who is not the company’s: 404 ' +
    'code 6. Staff act on other users only, and only an admin on an employee (403 code 5). ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: userSessionsEndBody,
  result: userSessionsEndResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND'],
  examples: {
    request: { user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8', reason: 'call 8812: phone stolen' },
    result: { message: 'Every session ended', revoked: 2 },
  },
  // The back office's actions on a user (API contract 3.14): each writes, beside its change, the
  // record of the action and notice 8 in the user's list (with its unread count).
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['session'] },
      // No session granted since the sessions were read (session_version): the end of all of them.
      { actions: ['ConditionCheckItem'], keys: ['user'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      ...STAFF_FREEZE,
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
