import type { Endpoint } from '../http/endpoint.js';
import { passkeyRegisterBody, passkeyRegisterResult } from '../passkeys/passkey-schemas.js';
import { appendStaffRecord, keepAnswers, readCompanyAndSession, recordSessionUse, TAKE_CHALLENGE, UNREAD } from './grant-parts.js';

export const passkeysRegisterEndpoint = {
  operationId: 'passkeysRegister',
  method: 'POST',
  path: '/wallet/v3/auth/passkeys/register',
  summary: 'Register a passkey',
  tag: 'auth',
  description: () =>
    'The response of the creation (PublicKeyCredential.toJSON(), or a React Native module’s JSON) with an optional name, from the same fresh strong session that asked for the options. Verified by @simplewebauthn/server: the challenge (single-use), origin, rp_id, user verification. A credential id already registered in the company: 409 code 7. A malformed or wrong response: 400 code 1 naming the field, nothing written. Notice 13 and event passkey.added.',
  auth: 'required',

  body: passkeyRegisterBody,
  result: passkeyRegisterResult,
  errors: ['FORBIDDEN', 'DEVICE_LIMIT', 'ALREADY_REGISTERED'],
  examples: {
    request: {
      id: 'AQIDBAUGBwgJCgsMDQ4PEA',
      rawId: 'AQIDBAUGBwgJCgsMDQ4PEA',
      type: 'public-key',
      response: { clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0', attestationObject: 'o2NmbXRkbm9uZQ' },
      clientExtensionResults: {},
      name: 'My phone',
    },
    result: { message: 'Passkey added', passkey_id: '9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e' },
  },
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['webauthnChallenge'] },
      TAKE_CHALLENGE,
      // A retry whose challenge its first run took (its answer lost) finds the passkey that run added.
      { actions: ['GetItem'], keys: ['passkeyCredential', 'userPasskey'] },
      { actions: ['PutItem'], keys: ['passkeyCredential', 'userPasskey', 'notification'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // An employee's own passkey is recorded in the staff chain with its reason (self_passkey_add).
      ...appendStaffRecord,
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
