import { userPhoneChangeBody } from '../account/phone-change-input.js';
import { userPhoneChangeResult } from '../account/phone-change-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { FRESH_LOGIN_SECONDS } from '../sessions/fresh-login.js';
import {
  checkChangesNotFrozen,
  keepAnswers,
  PIN_REHASH,
  PIN_TRIES,
  readCompanyAndSession,
  recordUseAndEndSessions,
  TRIES_READ_BACK,
  UNREAD,
  USE_PHONE_PROOF,
} from './grant-parts.js';

export const userPhoneChangeEndpoint = {
  operationId: 'userPhoneChange',
  method: 'POST',
  path: '/wallet/v3/user/phone/change',
  summary: 'Move the token user to a new, proven phone number',
  tag: 'account',
  description: () =>
    'Moves the account to a new number, on two proofs: a phone_verification_token (otp_type 2) for the NEW number, verified while ' +
    'presenting this user’s token, and a presenting session that began by OTP or PIN login less than ' +
    `${duration(FRESH_LOGIN_SECONDS)} ago. Without either, or with a proof that is unknown, used, expired, for another number or ` +
    'got without this user’s token: 400 code 14. A session begun by PIN login (a bound device and the PIN) moves the account at ' +
    'once: a number another active user holds is 409 code 7, unless that user never proved it (then it is reclaimed from them, as ' +
    'a registration would); in one write the new number is claimed, the old one freed, phone_verified becomes 1, a security ' +
    'notification (event 6) is written and every other session of the user ends; the old number is then told by SMS that the ' +
    'account moved (a text with no code), and gets no login code any more. A session begun by OTP login, which whoever took over ' +
    'the old number by a SIM swap also passes, must send login_pin too (absent: 400 code 14; wrong: 400 code 17, counted toward ' +
    'its lock; locked: 18), and the change then waits PHONE_CHANGE_HOLD_HOURS: the answer is pending 1, change_id and ' +
    'effective_at; the proof is used up, a notification (event 9) is written, the old number is told by SMS, and ' +
    'user.phone_change_pending follows. From effective_at, and for 7 days, the first OTP login (login_phone and verify_otp, ' +
    'otp_type 1) to the new number completes it as the immediate change does, and answers the session; until then any session ' +
    'may cancel it (phone/change/cancel). One pending change per user (a new request replaces it) and per number: a number ' +
    'held, or awaited by another user’s pending change, is 409 code 7.',
  auth: 'required',
  body: userPhoneChangeBody,
  result: userPhoneChangeResult,
  errors: ['PHONE_NOT_VERIFIED', 'ALREADY_REGISTERED', 'PIN_INVALID', 'PIN_LOCKED', 'FORBIDDEN'],
  examples: {
    request: { dial_code: '+1', phone_number: '2025550143', phone_verification_token: 'q3Zk0uJ8yVtq0l2b6c9X1sFhR4mN7pWd' },
    result: { message: 'Phone number changed', revoked: 1 },
  },
  // A new number: its claim taken (or moved from an unproven holder), the old one freed, the proof
  // used up, the old number's login code deleted; the user's phone fields (and an unproven holder's
  // status) and nothing else of a record; a notice; the other sessions (and the holder's) ended; the
  // old number's warning queued.
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'pendingChange'] },
      {
        actions: ['UpdateItem'],
        keys: ['user', 'unreadCount', 'pinTries'],
        attributes: [
          ...UNREAD,
          ...PIN_TRIES,
          ...PIN_REHASH.login,
          'dial_code',
          'phone_number',
          'phone_e164',
          'phone_verified',
          'status_id',
          'session_version',
          'updated_at',
          'phone_changed_from',
          'phone_changed_by_request',
          'phone_changed_at',
        ],
        returns: TRIES_READ_BACK,
      },
      { actions: ['PutItem'], keys: ['phoneClaim', 'notification'] },
      { actions: ['DeleteItem'], keys: ['phoneClaim', 'otp', 'emailClaim'] },
      USE_PHONE_PROOF,
      // The holder's devices and passkeys: a live holder is never displaced by a reclaim (contract 3.15; a passkey used in 90 days keeps it live).
      { actions: ['Query'], keys: ['session', 'userDevice', 'userPasskey'] },
      checkChangesNotFrozen,
      recordUseAndEndSessions,
      // From a session begun by OTP login (contract 3.11, round 5): the login PIN's try (above) and its
      // count cleared; the pending change stored, its index by the new number taken (a replaced one's
      // deleted), the new number's claim checked free.
      { actions: ['PutItem'], keys: ['pendingChange', 'phoneChangeIndex'] },
      { actions: ['DeleteItem'], keys: ['phoneChangeIndex', 'pinTries'] },
      { actions: ['ConditionCheckItem'], keys: ['phoneClaim'] },
    ],
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
