import type { Endpoint } from '../http/endpoint.js';
import { passkeyLoginOptionsBody } from '../passkeys/passkey-login-options-input.js';
import { passkeyLoginOptionsResult } from '../passkeys/passkey-schemas.js';
import { keepAnswers } from './grant-parts.js';

export const passkeysLoginOptionsEndpoint = {
  operationId: 'passkeysLoginOptions',
  method: 'POST',
  path: '/wallet/v3/auth/passkeys/login/options',
  summary: 'Options to log in with a passkey',
  tag: 'auth',
  description: () =>
    'No token. The request options for navigator.credentials.get, their challenge single-use for 300 s. Without a phone: a discoverable login (the platform offers its passkeys for rp_id). With dial_code and phone_number (and user_type, default 2): allowCredentials, the same shape for every phone (ids derived by HMAC for a phone with no passkey), so the answer never says whether an account exists.',
  auth: 'none',
  bodyRequired: false,
  body: passkeyLoginOptionsBody,
  result: passkeyLoginOptionsResult,
  errors: ['UNAUTHORIZED'],
  examples: {
    request: {},
    result: {
      message: 'Sign with a passkey, then send the response to passkeys/login',
      options: { challenge: 'q3cUw1Y5bqYw3mU0nq8w2d2m4Yh0Q3g8dQ2w1Yx5c0A', rpId: 'wallet.example.com', userVerification: 'required' },
    },
  },
  // With a phone: its claim and the holder's passkeys (else ids derived by HMAC from the secret).
  grants: {
    table: [
      keepAnswers,
      { actions: ['GetItem'], keys: ['company', 'phoneClaim'] },
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['PutItem'], keys: ['webauthnChallenge'] },
    ],
    secret: true,
  },
} as const satisfies Endpoint;
