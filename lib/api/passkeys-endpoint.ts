import type { Endpoint } from '../http/endpoint.js';
import { passkeysResult } from '../passkeys/passkey-schemas.js';
import { readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const passkeysEndpoint = {
  operationId: 'passkeys',
  method: 'GET',
  path: '/wallet/v3/auth/passkeys',
  summary: 'List the user’s passkeys',
  tag: 'auth',
  description: () =>
    'The token user’s passkeys, newest first: passkey_id, name, created_date, last_used_date, backed_up (synced). Never a key or a credential id.',
  auth: 'required',

  result: passkeysResult,
  errors: [],
  examples: {
    result: {
      passkeys: [
        { passkey_id: '9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e', name: 'My phone', created_date: 1767225600, last_used_date: null, backed_up: 1 },
      ],
    },
  },
  grants: {
    table: [readCompanyAndSession, { actions: ['Query'], keys: ['userPasskey'] }, recordSessionUse],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
