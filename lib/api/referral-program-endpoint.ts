import { type Endpoint, sampleUserId } from '../http/endpoint.js';
import { referralProgramBody, referralProgramQuery } from '../referrals/referral-program-input.js';
import { referralProgramResult } from '../referrals/referral-program-result.js';
import { readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const referralProgramEndpoint = {
  operationId: 'referralProgram',
  method: 'GET',
  path: '/wallet/v3/reward_promotion/referral_program',
  summary: "List a user's referral notifications",
  tag: 'referrals',
  description: () =>
    "A user's referral notifications, newest first, with the user's referral code and count. " +
    "user_id comes from the query string, else a JSON body, else the token's own user; only an " +
    "employee of the company may read another user's list. Page with limit and cursor.",
  auth: 'required',
  query: referralProgramQuery,
  body: referralProgramBody,
  result: referralProgramResult,
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  examples: {
    result: {
      notification: [
        {
          id: '42a13e1937216d491414d1f2dd937844',
          user_id: sampleUserId,
          is_read: 0,
          notification_title: 'New referral',
          notification_body: 'Carol signed up with your referral code.',
          notification_type: 1,
          notification_event_type: 1,
          created_date: 1795321586,
          updated_date: 1795321586,
        },
      ],
      referral_code: 'B31V25KC',
      referral_count: 1,
      next_cursor: null,
    },
  },
  // Reads only, but for the one attribute that records a session's use (docs/operations.md).
  grants: {
    table: [
      readCompanyAndSession,
      // The user with their referral count shards (one Query), and the notifications.
      { actions: ['Query'], keys: ['user', 'notification'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
