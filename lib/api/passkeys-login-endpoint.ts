import { type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { passkeyLoginBody, passkeyLoginResult } from '../passkeys/passkey-schemas.js';
import { END_CHANGE, keepAnswers, recordUseAndEndSessions, spendProofs, TAKE_CHALLENGE, UNREAD } from './grant-parts.js';

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
  // As a PIN login on a settled device (loginPin), the challenge taken and the counter moved in the grant.
  grants: {
    table: [
      spendProofs,
      keepAnswers,
      { actions: ['GetItem'], keys: ['company', 'webauthnChallenge', 'passkeyCredential', 'userPasskey', 'user', 'deviceIndex'] },
      { actions: ['Query'], keys: ['pendingChange', 'userPasskey', 'session'] },
      {
        actions: ['DeleteItem'],
        keys: ['userPasskey', 'passkeyCredential', 'deviceIndex', 'userDevice', 'phoneChangeIndex'],
      },
      TAKE_CHALLENGE,
      // With not_me: 1, as user/security/not_me: changes ended, devices on probation and young passkeys removed, other sessions ended.
      END_CHANGE,
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordUseAndEndSessions,
      { actions: ['PutItem'], keys: ['session', 'notification'] },
      {
        actions: ['UpdateItem'],
        keys: ['user', 'userPasskey', 'userDevice'],
        attributes: [
          'status_id',
          'session_version',
          'strong_login_at',
          'counter',
          'last_used_at',
          'cloned_at',
          'probation_held',
          'probation_since',
          // not_me: 1 removes the devices on probation, one off the count each.
          'device_count',
        ],
      },
      { actions: ['UpdateItem'], keys: ['deviceIndex'], attributes: ['probation_held', 'probation_since'] },
    ],
    secret: true,
    signingKeys: 'sign',
  },
} as const satisfies Endpoint;
