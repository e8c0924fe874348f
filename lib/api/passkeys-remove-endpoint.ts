import type { Endpoint } from '../http/endpoint.js';
import { passkeyRemoveBody, passkeyRemoveResult } from '../passkeys/passkey-schemas.js';
import { appendStaffRecord, keepAndRecallAnswers, readCompanyAndSession, recordUseAndEndSessions, UNREAD } from './grant-parts.js';

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
  // A removal: the passkey, its claim and the count, notice 14; then every session it began ends.
  grants: {
    table: [
      keepAndRecallAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['userPasskey'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      { actions: ['Query'], keys: ['session'] },
      // An employee's removal is recorded in the staff chain with its reason (self_passkey_remove).
      ...appendStaffRecord,
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordUseAndEndSessions,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
