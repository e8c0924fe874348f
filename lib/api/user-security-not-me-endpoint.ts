import { duration, type Endpoint } from '../http/endpoint.js';
import { notMeBody } from '../security/not-me-input.js';
import { notMeResult } from '../security/not-me-result.js';
import { END_CHANGE, keepAnswers, readCompanyAndSession, recordUseAndEndSessions, UNREAD } from './grant-parts.js';

export const userSecurityNotMeEndpoint = {
  operationId: 'userSecurityNotMe',
  method: 'POST',
  path: '/wallet/v3/user/security/not_me',
  summary: '"Not me": undo what someone holding the number did',
  tag: 'account',
  description: (config) =>
    'The owner’s way back from a SIM swap: from a strong session (a PIN login on a settled device, or a passkey) proven under ' +
    `${duration(config.stepUpMaxAgeSeconds)} ago, it cancels every pending change (but a recovery started by support), removes every ` +
    'device on probation with its sessions, removes passkeys registered less than ' +
    `${duration(config.credentialProbationHours * 3600)} ago, and ends every other session of the user. Answers what it undid. ` +
    'Notification event 12. An SMS-strength session: 403 code 5 with needs "strong"; an older strong one: needs "strong_fresh".',
  auth: 'required',
  body: notMeBody,
  bodyRequired: false,
  result: notMeResult,
  errors: ['FORBIDDEN'],
  examples: {
    request: {},
    result: {
      message: 'Secured: every change that waited is cancelled, every other session ended and new devices removed',
      cancelled: 2,
      revoked: 3,
      devices_removed: 1,
      passkeys_removed: 0,
    },
  },
  // "Not me" (contract 3.15): the user's pending changes ended, the devices on probation removed with
  // their sessions and one off the count each, every other session ended, notice 12.
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user', 'deviceIndex'] },
      { actions: ['Query'], keys: ['pendingChange', 'session'] },
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['deviceIndex', 'userDevice', 'phoneChangeIndex'] },
      { actions: ['UpdateItem'], keys: ['user'], attributes: ['device_count'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      // Passkeys registered lately, removed (contract 3.15, second reading).
      { actions: ['Query'], keys: ['userPasskey'] },
      { actions: ['DeleteItem'], keys: ['userPasskey', 'passkeyCredential'] },
      { actions: ['UpdateItem'], keys: ['userPasskeyCount'], attributes: ['passkey_count'] },
      recordUseAndEndSessions,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
