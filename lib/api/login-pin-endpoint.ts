import { type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { loginPinBody } from '../pins/login-pin-input.js';
import { loginPinResult } from '../pins/login-pin-result.js';
import { END_CHANGE, keepAnswers, PIN_DAILY, PIN_REHASH, PIN_TRIES, spendProofs, TRIES_READ_BACK, UNREAD } from './grant-parts.js';

export const loginPinEndpoint = {
  operationId: 'loginPin',
  method: 'POST',
  path: '/wallet/v3/auth/login_pin',
  summary: 'Log in by PIN on a bound device',
  tag: 'auth',
  description: ({ pinLoginWindowSeconds, pinMaxFailures }) =>
    'Logs in on a device bound by user_register or verify_otp (device_public_key), without SMS. The device signs ' +
    '"login_pin\\n<company id, lowercase>\\n<device_key>\\n<timestamp>\\n<nonce>" (ECDSA P-256 / SHA-256, base64 DER or raw r||s). ' +
    `An unknown or removed device, a bad signature, a timestamp more than ${pinLoginWindowSeconds} s from the server's clock or ` +
    'a nonce used before on the device: 401, and the PIN is not looked at. A wrong PIN: 400 code 17 with attempts_left; ' +
    `after ${pinMaxFailures} wrong login PINs in a row (over all the user's devices): 400 code 18 until an OTP login or reset_pin. ` +
    'The session is bound to the device: removing the device ends it.',
  // A PIN checked against its scrypt hash is CPU-bound: 1,024 MB buys the CPU share its figures
  // in docs/performance.md were measured at.
  memorySize: 1024,
  auth: 'none',
  body: loginPinBody,
  result: loginPinResult,
  errors: ['UNAUTHORIZED', 'PIN_INVALID', 'PIN_LOCKED', 'FORBIDDEN'],
  answersCredential: true,
  examples: {
    request: {
      device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
      login_pin: '2580',
      timestamp: 1767225600,
      nonce: 'b3K9xQ2mV7pL1sT8',
      signature: 'MEUCIQDp1x2Rz9mK8nB3vC5tY7uW0qL4sE6hJ2gF1aD9cX3bZwIgQ5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5bN8mQ1wE4rT=',
    },
    result: { message: 'Logged in successfully', ...sampleTokens, user_id: sampleUserId },
  },
  // No token: the device's signature and the PIN are the proof.
  grants: {
    table: [
      spendProofs,
      keepAnswers,
      { actions: ['GetItem'], keys: ['company', 'deviceIndex', 'user'] },
      // The user's devices and pending changes, one Query (its lower bound is the changes').
      { actions: ['Query'], keys: ['pendingChange'] },
      { actions: ['PutItem'], keys: ['deviceNonce', 'session', 'notification'] },
      // The PIN's try, its hash made again under a new key version, and the grant: the user (an
      // active one, the PIN's version as compared, a session counted, when a right or strong PIN
      // came), the device still bound and its last use; a lock's notice counted unread.
      {
        actions: ['UpdateItem'],
        keys: ['pinTries', 'user', 'userDevice', 'unreadCount'],
        attributes: [
          ...PIN_TRIES,
          ...UNREAD,
          ...PIN_REHASH.login,
          'status_id',
          'login_pin_version',
          // A PIN the user sets is no longer one staff chose (contract 3.15, pin_setup).
          'login_pin_to_set',
          'session_version',
          'last_used_at',
          'login_pin_right_at',
          'strong_login_at',
          // A strong login holds the devices still on probation (contract 3.15): their listing here, their index below.
          'probation_held',
          'probation_since',
          // not_me: 1 removes the devices on probation, one off the count each.
          'device_count',
          // A held deletion that is due lands (below).
          'erase_after',
          'deleted_at',
          'updated_at',
          'deleted_device_keys',
        ],
        returns: TRIES_READ_BACK,
      },
      { actions: ['UpdateItem'], keys: ['deviceIndex'], attributes: ['probation_held', 'probation_since'] },
      { actions: ['DeleteItem'], keys: ['pinTries'] },
      // With not_me: 1, as user/security/not_me: changes ended (a phone change's index freed), devices on
      // probation removed, passkeys registered lately removed (contract 3.15, second reading), and the
      // user's other sessions ended.
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice', 'phoneChangeIndex'] },
      { actions: ['Query'], keys: ['userPasskey', 'session'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      // Sessions ended by not_me, and one granted in steps (session-grant.ts) whose checks after its put refused it.
      { actions: ['UpdateItem'], keys: ['session'], attributes: ['ended_reason', 'ended_at_ms'] },
      ...PIN_DAILY,
      // A held deletion that is due lands at the login (contract 3.15, second reading), as user/delete
      // makes one (the user's attributes above): the phone claim kept but marked, the change deleted
      // (only a customer's: an employee's deletion is never held, so no admin seat moves here).
      { actions: ['Query'], keys: ['userDevice'] },
      { actions: ['GetItem', 'UpdateItem'], keys: ['phoneClaim'] },
      { actions: ['PutItem'], keys: ['erasureDue', 'erasureCompany'] },
      { actions: ['DeleteItem'], keys: ['pendingChange'] },
    ],
    secret: true,
    signingKeys: 'sign',
  },
} as const satisfies Endpoint;
