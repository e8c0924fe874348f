import { userSearchBody } from '../admin/user-search-input.js';
import { userSearchResult } from '../admin/user-search-result.js';
import type { Endpoint } from '../http/endpoint.js';
import { recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';

export const adminUsersSearchEndpoint = {
  operationId: 'adminUsersSearch',
  method: 'POST',
  path: '/wallet/v3/admin/users/search',
  summary: 'Find the user an exact key names (support, admin)',
  tag: 'admin',
  description: (config) =>
    'Exactly one of phone (E.164), email, user_id or referral_code, and user_type (default 2; a user_id names a ' +
    'user of either type). Answers an empty list or the one user, with the phone and email masked. Exact matches ' +
    `only: no listing, no prefix. At most ${config.admin.lookupsPerHour} searches, views and recovery starts per ` +
    'employee per clock hour (429 code 12). ' +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: userSearchBody,
  result: userSearchResult,
  errors: ['FORBIDDEN', 'PHONE_NOT_VERIFIED', 'TOO_MANY_REQUESTS'],
  examples: {
    request: { phone: '+12025550143', reason: 'call 8812: customer lost access' },
    result: {
      users: [
        {
          user_id: '5f1c7a2b9d3e4f60718293a4b5c6d7e8',
          user_type: 2,
          first_name: 'Ada',
          last_name: 'Lovelace',
          phone_last4: '0143',
          email_masked: 'a***@example.com',
          phone_verified: 1,
          status_id: 1,
          created_date: 1764081000,
        },
      ],
    },
  },
  grants: {
    table: [
      ...staffCall,
      // The acting employee; the user an exact key names, through its claim or its id.
      { actions: ['GetItem'], keys: ['user', 'phoneClaim', 'emailClaim', 'referralCode'] },
      { actions: ['UpdateItem'], keys: ['staffLookups'] },
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
