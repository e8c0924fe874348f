import { userProfileUpdateResult } from '../account/profile-result.js';
import { FIXED_FIELDS, userProfileUpdateBody } from '../account/profile-update-input.js';
import type { Endpoint } from '../http/endpoint.js';
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
    '(a phone moves by /wallet/v3/user/phone/change). Answers the profile as it now is.',
  auth: 'required',
  body: userProfileUpdateBody,
  // Every field is optional: an empty body changes nothing and answers the profile.
  bodyRequired: false,
  result: userProfileUpdateResult,
  errors: ['ALREADY_REGISTERED'],
  examples: {
    request: { first_name: 'Augusta Ada', email: 'ada.king@example.com' },
    result: { message: 'Profile updated', user: { ...sampleProfile, first_name: 'Augusta Ada', email: 'ada.king@example.com' } },
  },
} as const satisfies Endpoint;
