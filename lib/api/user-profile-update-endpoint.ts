import { userProfileUpdateResult } from '../account/profile-result.js';
import { FIXED_FIELDS, userProfileUpdateBody } from '../account/profile-update-input.js';
import type { Endpoint } from '../http/endpoint.js';
import { HOLD_CHANGE, keepAnswers, readCompanyAndSession, recordSessionUse, UNREAD } from './grant-parts.js';
import { sampleProfile } from './user-profile-endpoint.js';

export const userProfileUpdateEndpoint = {
  operationId: 'userProfileUpdate',
  method: 'POST',
  path: '/wallet/v3/user/profile/update',
  summary: 'Change the token user’s names, email, image, birth date or location',
  tag: 'account',
  description: () =>
    'Changes any of first_name, last_name, email, image, birth_date and location_point, with the rules of user_register. ' +
    'A new email is claimed and the old one freed in the same write: an email another user of the company holds (same ' +
    `user_type) answers 409 code 7. ${FIXED_FIELDS.join(', ')} cannot be changed here: 400 code 1 naming the field ` +
    '(a phone moves by /wallet/v3/user/phone/change). Answers the profile as it now is. From a strong session every ' +
    'field changes at once. From an SMS-strength session (registration, OTP login, a PIN login on a device on ' +
    'probation) a change of first_name, last_name, birth_date or email is a held change (kind profile): the answer ' +
    'adds pending, change_id and effective_at, the number is warned by SMS, it shows in pending_changes and any ' +
    'session of the user may cancel it; a new one replaces it (never one a strong session asked for: 403 code 5); ' +
    'once due it lands at the next GET /wallet/v3/user/profile (an email another user claimed meanwhile voids it). ' +
    'image and location_point change at once, and so does a field given as it already is.',
  auth: 'required',
  body: userProfileUpdateBody,
  // Every field is optional: an empty body changes nothing and answers the profile.
  bodyRequired: false,
  result: userProfileUpdateResult,
  errors: ['ALREADY_REGISTERED', 'FORBIDDEN'],
  examples: {
    request: { first_name: 'Augusta Ada', email: 'ada.king@example.com' },
    result: { message: 'Profile updated', user: { ...sampleProfile, first_name: 'Augusta Ada', email: 'ada.king@example.com' } },
  },
  // The user's own fields and nothing else of the record (not a status, a phone, a PIN or a hash);
  // a new email's claim taken and the old one given up.
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      {
        actions: ['UpdateItem'],
        keys: ['user'],
        attributes: [
          'first_name',
          'last_name',
          'email',
          'image',
          'birth_date',
          'location_point',
          'updated_at',
          'status_id',
          'session_version',
          'profile_version',
        ],
      },
      { actions: ['PutItem', 'DeleteItem'], keys: ['emailClaim'] },
      // From an SMS-strength session the names, birth date and email wait (contract 3.15, second
      // reading), with their notice and SMS; a new email's claim checked free of other users.
      HOLD_CHANGE,
      { actions: ['ConditionCheckItem'], keys: ['changeFreeze', 'emailClaim'] },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'], attributes: UNREAD },
      recordSessionUse,
    ],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret, and so is the warning SMS into the queue.
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
