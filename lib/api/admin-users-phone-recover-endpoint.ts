import { phoneRecoverBody } from '../admin/phone-recover-input.js';
import { phoneRecoverResult } from '../admin/phone-recovery-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordSessionUse, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersPhoneRecoverEndpoint = {
  operationId: 'adminUsersPhoneRecover',
  method: 'POST',
  path: '/wallet/v3/admin/users/phone/recover',
  summary: 'Start the recovery of a user who lost the number and every device (support, admin)',
  tag: 'admin',
  description: (config) =>
    'Starts a pending phone change (via support) to the number the user can now receive codes on: a mobile number in the ' +
    'company’s countries (400 code 15), held by no one (409 code 7), not the account’s own. It does not run until another ' +
    'admin approves it (admin/users/phone/approve) before approve_by, 72 hours on; nothing is sent yet. One pending change ' +
    'per user: it replaces the user’s own. The user must be active (409 code 23 naming user_id). Staff act on other users ' +
    'only, and only an admin on an employee (403 code 5). A start is a lookup: counted with the searches and views ' +
    `(at most ${config.admin.lookupsPerHour} per employee per clock hour, then 429 code 12), and recorded whether it ` +
    'starts or is refused (with why and the number’s last 4 digits); notice 8 is written in the user’s list when it starts. ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: phoneRecoverBody,
  result: phoneRecoverResult,
  errors: [
    'FORBIDDEN',
    'PHONE_NOT_VERIFIED',
    'NOT_FOUND',
    'ALREADY_REGISTERED',
    'SMS_DESTINATION_NOT_ALLOWED',
    'STATE_CONFLICT',
    'TOO_MANY_REQUESTS',
  ],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      dial_code: '+1',
      phone_number: '2025550199',
      reason: 'ticket 9120: phone stolen, ID checked in branch',
    },
    result: {
      message: 'Recovery started: another employee, an admin, must approve it',
      change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f',
      approve_by: 1764167400,
    },
  },
  // Assisted recovery (contract 3.14): the user, their pending change and the new number's claim
  // read; the change stored awaiting approval with its index item by the new number (a replaced
  // one's deleted), the claim checked free; the record and notice 8 in the same transaction.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'pendingChange'] },
      // A start is a lookup (ADMIN_LOOKUPS_PER_HOUR), recorded even when refused.
      { actions: ['UpdateItem'], keys: ['staffLookups'] },
      // Listed as awaiting approval (a replaced one's listing deleted).
      { actions: ['PutItem'], keys: ['pendingChange', 'phoneChangeIndex', 'staffAction', 'notification', 'awaitingRecovery'] },
      { actions: ['DeleteItem'], keys: ['phoneChangeIndex', 'awaitingRecovery'] },
      { actions: ['ConditionCheckItem'], keys: ['phoneClaim'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
