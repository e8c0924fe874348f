import type { Endpoint } from '../http/endpoint.js';
import { MAX_IDS, notificationsReadBody } from '../notifications/notifications-read-input.js';
import { notificationsReadResult } from '../notifications/notifications-read-result.js';
import { keepAnswers, readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const notificationsReadEndpoint = {
  operationId: 'notificationsRead',
  method: 'POST',
  path: '/wallet/v3/notifications/read',
  summary: "Mark the caller's notifications read",
  tag: 'notifications',
  description: () =>
    `Marks notifications of the token's user read: {"ids": [1 to ${MAX_IDS} ids]}, or {"all": 1} for every ` +
    'unread one, with "before" (UNIX seconds) for those created at or before it. Ids that are not the ' +
    "user's, or already read, change nothing, so a repeat is harmless. Answers how many changed and the unread count after.",
  auth: 'required',
  body: notificationsReadBody,
  result: notificationsReadResult,
  errors: [],
  examples: {
    request: { ids: ['019ab1f3c2e84f2a9d1c7b3e5a6f0d21'] },
    result: { message: 'Notifications marked read', marked: 1, unread_count: 0 },
  },
  // Marks notifications read (is_read, updated_date) and takes them off the unread count.
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['Query'], keys: ['notification', 'unreadCount'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'] },
      { actions: ['UpdateItem'], keys: ['notification'], attributes: ['is_read', 'updated_date'] },
      recordSessionUse,
    ],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret.
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
