import { userPasskeyRemoveBody, userPasskeyRemoveResult } from '../admin/user-passkey-remove.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordUseAndEndSessions, staffCall, UNREAD } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersPasskeysRemoveEndpoint = {
  operationId: 'adminUsersPasskeysRemove',
  method: 'POST',
  path: '/wallet/v3/admin/users/passkeys/remove',
  summary: 'Remove a passkey of a user (support, admin)',
  tag: 'admin',
  description: (config) =>
    'As the user’s own passkeys/remove: the passkey goes and every session it began ends; answers how many. The user ' +
    'gets notices 14 (passkey removed) and 8 (changed by support); the action is recorded as passkey_remove with its reason. ' +
    'A passkey that is not that user’s, or a user who is not the company’s: 404 code 6. Staff act on other users only, and ' +
    'only an admin on an employee (403 code 5). ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: userPasskeyRemoveBody,
  result: userPasskeyRemoveResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'NOT_FOUND'],
  examples: {
    request: {
      user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
      passkey_id: '9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e',
      reason: 'call 8812: phone stolen unlocked',
    },
    result: { message: 'Passkey removed', revoked: 1 },
  },
  // As the user's own passkeys/remove, with the staff record (and its notice 8) in the removal's transaction.
  grants: {
    table: [
      ...staffCall,
      { actions: ['GetItem'], keys: ['user', 'userPasskey'] },
      { actions: ['Query'], keys: ['session'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      { actions: ['PutItem'], keys: ['staffAction', 'notification'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
