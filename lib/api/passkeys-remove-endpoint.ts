import type { Endpoint } from '../http/endpoint.js';
import { passkeyRemoveBody, passkeyRemoveResult } from '../passkeys/passkey-schemas.js';

export const passkeysRemoveEndpoint = {
  operationId: 'passkeysRemove',
  method: 'POST',
  path: '/wallet/v3/auth/passkeys/remove',
  summary: 'Remove a passkey',
  tag: 'auth',
  description: () =>
    'From a strong session proven under STEP_UP_MAX_AGE_SECONDS ago: removes one of the user’s passkeys and ends every session it began (answers how many). Not the user’s: 404. Notice 14 and event passkey.removed.',
  auth: 'required',
  endsOwnSession: true,
  body: passkeyRemoveBody,
  result: passkeyRemoveResult,
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  examples: { request: { passkey_id: '9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e' }, result: { message: 'Passkey removed', revoked: 1 } },
} as const satisfies Endpoint;
