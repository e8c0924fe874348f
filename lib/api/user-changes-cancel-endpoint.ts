import type { Endpoint } from '../http/endpoint.js';
import { userChangesCancelBody } from '../pending-changes/user-changes-cancel-input.js';
import { userChangesCancelResult } from '../pending-changes/user-changes-cancel-result.js';
import { cancelPendingChange } from './grant-parts.js';

export const userChangesCancelEndpoint = {
  operationId: 'userChangesCancel',
  method: 'POST',
  path: '/wallet/v3/user/changes/cancel',
  summary: 'Cancel one of the token user’s pending changes',
  tag: 'account',
  description: (config) =>
    `Cancels a change that waits (a new PIN, a new number, the removal of a settled device...: pending_changes of the profile). ` +
    `A change asked for from a session an SMS code alone could have opened waits ${config.phoneChangeHoldHours} hours, and any ` +
    'live session of the user may cancel it, however it began, so the owner whose SIM was swapped stops it from the app. A ' +
    'recovery started by support is cancelled only by a strong session on a credential older than the recovery (else 403 code 5 ' +
    'with needs "strong") or by support. A security notification (event 10) is written and the event user.change_cancelled ' +
    'follows. A change_id that is not a pending change of the user (unknown, another user’s, replaced, already cancelled, done, ' +
    'or void): 404 code 6 naming change_id.',
  auth: 'required',
  body: userChangesCancelBody,
  result: userChangesCancelResult,
  errors: ['NOT_FOUND', 'FORBIDDEN'],
  examples: {
    request: { change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f' },
    result: { message: 'Login PIN change cancelled', kind: 'login_pin' },
  },
  grants: {
    table: cancelPendingChange,
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
