import { type Endpoint, sampleUserId } from '../http/endpoint.js';
import { notificationsQuery } from '../notifications/notifications-input.js';
import { notificationsResult } from '../notifications/notifications-result.js';
import { readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const notificationsEndpoint = {
  operationId: 'notifications',
  method: 'GET',
  path: '/wallet/v3/notifications',
  summary: "List the caller's notifications with the unread count",
  tag: 'notifications',
  description: () =>
    "The token user's notifications of every type, newest first: notification_type 1 referral (event 1 a " +
    'referred user signed up), 2 security (event 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked). ' +
    'unread=1 lists only unread ones. unread_count is exact, whatever the page holds. Page with limit and cursor.',
  auth: 'required',
  query: notificationsQuery,
  result: notificationsResult,
  errors: [],
  examples: {
    result: {
      notification: [
        {
          id: '019ab1f3c2e84f2a9d1c7b3e5a6f0d21',
          user_id: sampleUserId,
          is_read: 0,
          notification_title: 'PIN changed',
          notification_body: 'Your login PIN was changed. Your other sessions were signed out.',
          notification_type: 2,
          notification_event_type: 3,
          created_date: 1795430000,
          updated_date: 1795430000,
        },
        {
          id: '019ab0c5e1a04c8e2b7f91d3a0c4e5f6',
          user_id: sampleUserId,
          is_read: 1,
          notification_title: 'New referral',
          notification_body: 'Carol signed up with your referral code.',
          notification_type: 1,
          notification_event_type: 1,
          created_date: 1795321586,
          updated_date: 1795329000,
        },
      ],
      unread_count: 1,
      next_cursor: null,
    },
  },
  // Reads only, but for a session's use, as referralProgram: the page and the unread count's shards.
  grants: {
    table: [readCompanyAndSession, { actions: ['Query'], keys: ['notification', 'unreadCount'] }, recordSessionUse],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
