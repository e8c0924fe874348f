import { type Endpoint, sampleTokens } from '../http/endpoint.js';
import { stepUpBody } from '../step-up/step-up-input.js';
import { stepUpResult } from '../step-up/step-up-result.js';
import {
  keepAnswers,
  PIN_REHASH,
  PIN_TRIES,
  readCompanyAndSession,
  spendProofs,
  TAKE_CHALLENGE,
  TRIES_READ_BACK,
  UNREAD,
} from './grant-parts.js';

export const stepUpEndpoint = {
  operationId: 'stepUp',
  method: 'POST',
  path: '/wallet/v3/auth/step_up',
  summary: 'Prove a strong session again: the device and the PIN',
  tag: 'auth',
  description: ({ stepUpMaxAgeSeconds, pinLoginWindowSeconds }) =>
    `A strong session proven more than ${stepUpMaxAgeSeconds} s ago (a PIN login on a settled device, a passkey) answers 403 code 5 ` +
    'with needs "strong_fresh" to a PIN reset or change, a phone change, a deletion, the removal of a settled device, passkeys, not_me ' +
    'and admin-only routes. Its own device proves itself again, as login_pin does, signing ' +
    '"step_up\\n<company id, lowercase>\\n<device_key>\\n<timestamp>\\n<nonce>" (a timestamp within ' +
    `${pinLoginWindowSeconds} s, a nonce used once per device), with the login PIN counted on the device’s tally. The session keeps ` +
    'its sid and strength; the answer is a new access token whose auth_time is now (the refresh token stays). Another device than the ' +
    'session’s, a bad signature, a replayed nonce: 401 code 4, nothing counted. Or, instead of the device and PIN, `passkey`: an ' +
    'assertion of one of the user’s passkeys for a challenge of passkeys/login/options (checked as a passkey login; 401 code 4). ' +
    'An SMS-strength session: 403 code 5 with needs "strong".',
  // A PIN checked against its scrypt hash is CPU-bound, as login_pin's.
  memorySize: 1024,
  auth: 'required',
  body: stepUpBody,
  result: stepUpResult,
  errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PIN_INVALID', 'PIN_LOCKED'],
  answersCredential: true,
  examples: {
    request: {
      device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
      login_pin: '2580',
      timestamp: 1767225600,
      nonce: 'c4L0yR3nW8qM2tU9',
      signature: 'MEUCIQDp1x2Rz9mK8nB3vC5tY7uW0qL4sE6hJ2gF1aD9cX3bZwIgQ5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5bN8mQ1wE4rT=',
    },
    result: { message: 'Stepped up', token: sampleTokens.token, expires_in: 900 },
  },
  // A strong session proven again by its device and PIN (contract 3.15): the device, its nonce, the
  // PIN's tally, the session's auth_time; a new access token signed.
  grants: {
    table: [
      spendProofs,
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['deviceIndex', 'user'] },
      { actions: ['PutItem'], keys: ['deviceNonce', 'notification'] },
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'unreadCount'],
        attributes: [...PIN_TRIES, ...UNREAD, ...PIN_REHASH.login],
        returns: TRIES_READ_BACK,
      },
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      // The session's use recorded, and its step-up: auth_at, only while it is live, strong and on that device.
      {
        actions: ['UpdateItem'],
        keys: ['session'],
        attributes: ['auth_at', 'last_used_at', 'ended_reason', 'device_key', 'expires_at', 'acr', 'began'],
        returns: ['ALL_NEW'],
      },
      // A step-up by passkey (contract 3.15, second reading): its challenge and passkey read, the challenge taken, the counter moved.
      { actions: ['GetItem'], keys: ['webauthnChallenge', 'passkeyCredential', 'userPasskey'] },
      TAKE_CHALLENGE,
      { actions: ['UpdateItem'], keys: ['userPasskey'], attributes: ['counter', 'last_used_at', 'cloned_at'] },
    ],
    secret: true,
    signingKeys: 'sign',
  },
} as const satisfies Endpoint;
