import { type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { passkeyLoginBody, passkeyLoginResult } from '../passkeys/passkey-schemas.js';

export const passkeysLoginEndpoint = {
  operationId: 'passkeysLogin',
  method: 'POST',
  path: '/wallet/v3/auth/passkeys/login',
  summary: 'Log in with a passkey',
  tag: 'auth',
  description: () =>
    'No token. The assertion (PublicKeyCredential.toJSON()) for a challenge of login/options: verified by @simplewebauthn/server (challenge single-use, origin, rp_id, user verification required, the signature). The signature counter may stay 0 (synced passkeys); one that went back is refused and the passkey marked (event passkey.cloned). Any refusal: 401 code 4, no account named, nothing written. A success answers as login_pin on a settled device: a strong session (amr ["hwk","user"], acr strong), pending_changes and probation_devices; not_me: 1 runs "Not me" with it. Removing the passkey ends the session.',
  auth: 'none',
  answersCredential: true,
  body: passkeyLoginBody,
  result: passkeyLoginResult,
  errors: ['UNAUTHORIZED'],
  examples: {
    request: {
      id: 'AQIDBAUGBwgJCgsMDQ4PEA',
      rawId: 'AQIDBAUGBwgJCgsMDQ4PEA',
      type: 'public-key',
      response: {
        clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
        authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
        signature: 'MEUCIQ',
      },
      clientExtensionResults: {},
    },
    result: { message: 'Logged in successfully', ...sampleTokens, user_id: sampleUserId, pending_changes: [], probation_devices: [] },
  },
} as const satisfies Endpoint;
