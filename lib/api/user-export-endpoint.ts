import { userExportResult } from '../account/export-result.js';
import { type Endpoint, sampleUserId } from '../http/endpoint.js';
import { holdChangeWithNotice, readCompanyAndSession, recordSessionUse } from './grant-parts.js';
import { sampleProfile } from './user-profile-endpoint.js';

export const userExportEndpoint = {
  operationId: 'userExport',
  method: 'GET',
  path: '/wallet/v3/user/export',
  summary: 'Everything the wallet holds about the token’s user',
  tag: 'account',
  description: () =>
    'One JSON document of what is held about the token user (right of access): the profile, the referral code and ' +
    'count, bound devices (labels and dates), sessions (how and when each began, last use, end; never a token), every ' +
    'notification and, among them, the security events, and what the company’s staff did on the account (action, ' +
    'employee, date; searches and views included). Never a token, hash, PIN, key or code. An operator gets the ' +
    'same document with npm run user:export. A strong session gets it at once; from an SMS-strength session the ' +
    'export is a held change (kind export): the first request answers pending, change_id and effective_at, the ' +
    'number is warned, and asked again meanwhile the same change is answered; from effective_at on, for 7 days, ' +
    'any session of the user gets the document.',
  auth: 'required',
  result: userExportResult,
  errors: ['FORBIDDEN'],
  examples: {
    result: {
      exported_date: 1767312000,
      user: sampleProfile,
      referral: { referral_code: sampleProfile.referral_code, referral_count: 2 },
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
          began: 'pin',
          created_date: 1767312000,
          last_used_date: 1767312000,
          expires_date: 1769904000,
          device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c',
        },
      ],
      notifications: [
        {
          id: '0000000001767225600000a1b2c3d4',
          user_id: sampleUserId,
          is_read: 0,
          notification_title: 'New device',
          notification_body: 'A new device can now sign in to your account. If this was not you, remove it and reset your PIN.',
          notification_type: 2,
          notification_event_type: 2,
          created_date: 1767225600,
          updated_date: 1767225600,
        },
      ],
      security_events: [],
      staff_actions: [{ action: 'view', actor_id: '9a8b7c6d5e4f30211203948576a6b5c4', date: 1767312300 }],
    },
  },
  // Reads the token user's whole partition (their export), and writes nothing but a session's use.
  // From an SMS-strength session the export waits (contract 3.15, second reading): its change held, with its notice and SMS.
  grants: {
    table: [
      readCompanyAndSession,
      { actions: ['Query'], keys: ['user'] },
      { actions: ['GetItem'], keys: ['user'] },
      ...holdChangeWithNotice,
      recordSessionUse,
    ],
    // The warning SMS is sealed into the queue under a key derived from the server secret.
    secret: true,
    queue: 'send',
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
