import { userProfileResult } from '../account/profile-result.js';
import { type Endpoint, sampleUserId } from '../http/endpoint.js';
import { DELETION_USER, END_CHANGE, readCompanyAndSession, recordUseAndEndSessions } from './grant-parts.js';

/** The profile the examples show. */
export const sampleProfile = {
  user_id: sampleUserId,
  user_type: 2,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  dial_code: '+1',
  phone_number: '2025550143',
  phone_verified: 1,
  birth_date: 631152000000,
  image: null,
  kyc_status: 1,
  kyc_process_status: 1,
  country_id: null,
  location_point: '38.8977,-77.0365',
  referral_code: '94MQE4QQ',
  status_id: 1,
  created_date: 1767225600,
  updated_date: 1767225600,
};

export const userProfileEndpoint = {
  operationId: 'userProfile',
  method: 'GET',
  path: '/wallet/v3/user/profile',
  summary: 'What the wallet holds about the token’s user',
  tag: 'account',
  description: () =>
    'The token user’s profile: names, email, phone and whether it is proven, birth date, image, KYC state, country, ' +
    'location, referral code, status and dates. Never a password, PIN, hash or key. Beside it, pending_phone_change: the ' +
    'phone change that waits (change_id, effective_at, the new number’s last 4 digits), or null.',
  auth: 'required',
  result: userProfileResult,
  errors: [],
  examples: { result: { user: sampleProfile, pending_phone_change: null } },
  // Reads the token user's own record and pending phone change.
  // A held deletion or profile change that is due lands at the read (contract 3.15, second reading).
  grants: {
    table: [
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['user'] },
      { actions: ['Query'], keys: ['pendingChange', 'session', 'userDevice'] },
      { actions: ['GetItem', 'UpdateItem'], keys: ['phoneClaim'] },
      // And a held profile change that is due: the record's fields, a new email's claim taken, the old one given up.
      {
        actions: ['UpdateItem'],
        keys: ['user'],
        attributes: [...DELETION_USER, 'first_name', 'last_name', 'email', 'birth_date', 'profile_version'],
      },
      { actions: ['PutItem', 'DeleteItem'], keys: ['emailClaim'] },
      { actions: ['PutItem'], keys: ['erasureDue', 'erasureCompany'] },
      END_CHANGE,
      { actions: ['DeleteItem'], keys: ['userDevice', 'deviceIndex', 'phoneChangeIndex', 'pendingChange'] },
      recordUseAndEndSessions,
    ],
    // A DPoP proof refused carries a fresh nonce (DPoP-Nonce), keyed by the server secret (contract 3.17).
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
