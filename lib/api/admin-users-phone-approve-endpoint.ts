import { phoneApproveBody } from '../admin/phone-change-id-input.js';
import { phoneApproveResult } from '../admin/phone-recovery-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { recordSessionUse, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersPhoneApproveEndpoint = {
  operationId: 'adminUsersPhoneApprove',
  method: 'POST',
  path: '/wallet/v3/admin/users/phone/approve',
  summary: 'Approve a recovery another employee started (admin)',
  tag: 'admin',
  description: (config) =>
    'An admin approves a recovery another employee started: from now it runs as a pending phone change: due ' +
    `${config.phoneChangeHoldHours} hours from now (effective_at), the old number warned by SMS, notice 9 in the user’s ` +
    'list, the event user.phone_change_pending (via support), any live session of the user able to cancel it, and only a ' +
    'login by a code sent to the new number completing it within 7 days. At completion the account loses every bound device ' +
    'and every session (session.ended reason recovered). Refused (403 code 5) to the employee who started it, to an admin ' +
    'who registered them or asked for their role (or was made by them), and while the approver has been admin, or the ' +
    `starter registered or given their role, less than ${duration(config.admin.approverMinSeconds)}. A change_id that is ` +
    'not a recovery awaiting approval (approved, cancelled, or void 72 hours after its start): 404 code 6; one started by ' +
    'an employee no longer active staff: 409 code 23. ' +
    staffSessionRule(config, 'the admin role', { fresh: true }),
  auth: 'required',
  body: phoneApproveBody,
  result: phoneApproveResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND', 'STATE_CONFLICT'],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f',
      reason: 'ticket 9120: checked the branch’s ID record',
    },
    result: {
      message: 'Recovery approved: it completes at a login to the new number after the hold',
      change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f',
      effective_at: 1764253800,
    },
  },
  // Its approval by another admin: the change and its index item set to run from now; notices 9 and
  // 8, the record; then the old number warned by SMS.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      {
        actions: ['UpdateItem'],
        keys: ['pendingChange', 'phoneChangeIndex'],
        attributes: [
          'effective_at',
          'expires_at',
          'approved_by',
          'approved_at',
          'awaiting_approval',
          'change_id',
          'user_id',
          'ended_reason',
          'started_by',
        ],
      },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // Off the approvals list.
      { actions: ['DeleteItem'], keys: ['awaitingRecovery'] },
      recordSessionUse,
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
