import type { Endpoint } from '../http/endpoint.js';
import { userChangesCancelBody } from '../pending-changes/user-changes-cancel-input.js';
import { userChangesCancelResult } from '../pending-changes/user-changes-cancel-result.js';
import { cancelPendingChange } from './grant-parts.js';

export const userPhoneChangeCancelEndpoint = {
  operationId: 'userPhoneChangeCancel',
  method: 'POST',
  path: '/wallet/v3/user/phone/change/cancel',
  summary: 'Cancel one of the token user’s pending changes (the phone change’s route of 3.11)',
  tag: 'account',
  description: () =>
    'The route of 3.11, kept: it cancels a pending change of any kind, as POST /wallet/v3/user/changes/cancel does. Any ' +
    'live session of the user may cancel, however it began, but for a recovery started by support (only a strong session on a ' +
    'credential older than the recovery: else 403 code 5 with needs "strong"). A security notification (event 10) is written ' +
    'and the events user.change_cancelled (and, for a phone change, user.phone_change_cancelled) follow. A change_id that is ' +
    'not the user’s pending change (unknown, another user’s, replaced by a newer request, already cancelled, done, or void): ' +
    '404 code 6 naming change_id.',
  auth: 'required',
  body: userChangesCancelBody,
  result: userChangesCancelResult,
  errors: ['NOT_FOUND', 'FORBIDDEN'],
  examples: {
    request: { change_id: '6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f' },
    result: { message: 'Phone number change cancelled', kind: 'phone' },
  },
  // A pending phone change cancelled: the change marked (and nothing else of the user's partition),
  // its index item deleted, a notice.
  grants: {
    table: cancelPendingChange,
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
