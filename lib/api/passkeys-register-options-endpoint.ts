import type { Endpoint } from '../http/endpoint.js';
import { passkeyRegisterOptionsResult } from '../passkeys/passkey-schemas.js';
import { keepAnswers, readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const passkeysRegisterOptionsEndpoint = {
  operationId: 'passkeysRegisterOptions',
  method: 'POST',
  path: '/wallet/v3/auth/passkeys/register/options',
  summary: 'Options to create a passkey',
  tag: 'auth',
  description: () =>
    'From a strong session proven under STEP_UP_MAX_AGE_SECONDS ago (else 403 code 5, needs strong or strong_fresh): the creation options for navigator.credentials.create (PublicKeyCredential.parseCreationOptionsFromJSON) or a React Native passkey module, their challenge single-use for 300 s and bound to this session. User verification required, resident key preferred, ES256 and RS256; at most 10 passkeys per user (409 code 22). A company without webauthn settings: 400 code 1 naming webauthn.',
  auth: 'required',

  result: passkeyRegisterOptionsResult,
  errors: ['FORBIDDEN', 'DEVICE_LIMIT'],
  examples: {
    result: {
      message: 'Create the passkey with these options, then send its response to passkeys/register',
      options: { challenge: 'q3cUw1Y5bqYw3mU0nq8w2d2m4Yh0Q3g8dQ2w1Yx5c0A', rp: { id: 'wallet.example.com', name: 'Acme' } },
    },
  },
  // Passkeys (contract 3.16): the options store a challenge; registration verifies against it, then
  // takes it, claims the credential id, stores the passkey under the user's count, with notice 13.
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['PutItem'], keys: ['webauthnChallenge'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
