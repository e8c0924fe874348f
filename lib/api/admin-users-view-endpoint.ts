import { userViewBody } from '../admin/user-view-input.js';
import { userViewResult } from '../admin/user-view-result.js';
import { duration, type Endpoint, sampleUserId } from '../http/endpoint.js';
import { recordSessionUse, staffCall } from './grant-parts.js';
import { staffSessionRule } from './staff-session-rule.js';
import { sampleProfile } from './user-profile-endpoint.js';

const { email: _email, dial_code: _dialCode, phone_number: _phoneNumber, ...maskedProfile } = sampleProfile;

export const adminUsersViewEndpoint = {
  operationId: 'adminUsersView',
  method: 'POST',
  path: '/wallet/v3/admin/users/view',
  summary: 'See one user’s account (support, admin)',
  tag: 'admin',
  description: (config) =>
    'One user of the company by user_id: the profile with the phone and email masked as a search shows them (an admin ' +
    'sending reveal: 1, on a session proven under ' +
    `${duration(config.stepUpMaxAgeSeconds)} ago, sees dial_code, phone_number and email whole; support sending it: 403 ` +
    'code 5), the bound devices, the live sessions (how and when each began, last use, expiry, sid; never a token), where ' +
    'each PIN stands (set, locked, attempts_left), the pending phone change, the deletion under way, the referral count, ' +
    'the latest 20 security notifications and the latest 50 back-office actions on the user. Never a hash, PIN, code, ' +
    'token or key. A user_id the company does not hold: 404 code 6. Counted with the searches: at most ' +
    `${config.admin.lookupsPerHour} searches and views per employee per clock hour (429 code 12), an unknown id included. ` +
    staffSessionRule(config, 'a role'),
  auth: 'required',
  body: userViewBody,
  result: userViewResult,
  errors: ['FORBIDDEN', 'NOT_FOUND', 'PHONE_NOT_VERIFIED', 'TOO_MANY_REQUESTS'],
  examples: {
    request: { user_id: sampleUserId, reason: 'call 8812: customer lost access' },
    result: {
      user: { ...maskedProfile, phone_last4: '0143', email_masked: 'a***@example.com' },
      devices: [
        {
          device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
          device_type: 1,
          device_id: 'pixel-8',
          device_unique_id: 'u-1',
          created_date: 1767225600,
          last_used_date: 1767312000,
        },
      ],
      sessions: [
        {
          sid: '7c1e5a9b3d2f4e6a8b0c1d2e3f4a5b6c',
          began: 'pin',
          created_date: 1767312000,
          last_used_date: 1767312000,
          expires_date: 1769904000,
          device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
        },
      ],
      pins: { login: { set: 1, locked: 0, attempts_left: 5 }, transaction: { set: 1, locked: 1, attempts_left: 0 } },
      pending_phone_change: null,
      deletion: null,
      referral_count: 2,
      security_events: [{ notification_event_type: 5, notification_title: 'PIN locked', created_date: 1767310000 }],
      staff_actions: [
        { action: 'view', actor_id: '9a8b7c6d5e4f30211203948576a6b5c4', date: 1767312300 },
        { action: 'search', actor_id: '9a8b7c6d5e4f30211203948576a6b5c4', date: 1767312240 },
      ],
    },
  },
  // Reads one user's partition, kind by kind (profile and referral count, devices, sessions, PIN
  // tries, pending phone change, notifications, staff actions), and writes only the view's record.
  grants: {
    table: [
      ...staffCall,
      // The acting employee and the user viewed; the tallies of each PIN; the pending changes.
      { actions: ['GetItem'], keys: ['user'] },
      {
        actions: ['Query'],
        keys: ['user', 'userDevice', 'session', 'notification', 'staffAction', 'pinTries', 'pendingChange', 'userPasskey'],
      },
      { actions: ['UpdateItem'], keys: ['staffLookups'] },
      { actions: ['PutItem'], keys: ['staffAction'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
