import { duration, type Endpoint, sampleTokens, sampleUserId } from '../http/endpoint.js';
import { tokenRefreshBody } from '../sessions/token-refresh-input.js';
import { tokenRefreshResult } from '../sessions/token-refresh-result.js';
import { keepAnswers, spendProofs } from './grant-parts.js';

export const tokenRefreshEndpoint = {
  operationId: 'tokenRefresh',
  method: 'POST',
  path: '/wallet/v3/auth/token/refresh',
  summary: 'Spend a refresh token for a new access token and refresh token',
  tag: 'auth',
  description: ({ accessTokenTtlSeconds, tokenTtlSeconds, sessionIdleSeconds }) =>
    `Answers a new access token (valid ${duration(accessTokenTtlSeconds)}) and a new refresh token; the one sent is spent. ` +
    `A refresh token lives as its session does (${duration(tokenTtlSeconds)} at most, ended by ${duration(sessionIdleSeconds)} unused, ` +
    'by logout, disable or device removal). Unknown, expired or ended: 401 code 4. A spent refresh token sent again ends ' +
    'the whole session and writes a security notification (event 7): 401 code 4. Send each refresh with an Idempotency-Key: ' +
    'sent again with it (the answer was lost), it answers the same pair and is not a reuse.',
  auth: 'none',
  body: tokenRefreshBody,
  result: tokenRefreshResult,
  errors: ['UNAUTHORIZED'],
  answersCredential: true,
  examples: {
    request: { refresh_token: sampleTokens.refresh_token },
    result: { message: 'Tokens refreshed', ...sampleTokens, user_id: sampleUserId },
  },
  // Spends a refresh token (one conditional update of its session) and answers a new pair; a reused
  // one ends its session with a security notice.
  grants: {
    table: [
      spendProofs,
      keepAnswers,
      { actions: ['GetItem'], keys: ['company'] },
      {
        actions: ['UpdateItem'],
        keys: ['session'],
        attributes: [
          'refresh_hash',
          'refresh_gen',
          'last_used_at',
          'expires_at',
          'ended_reason',
          'ended_at_ms',
          'refresh_prev_hash',
          'refreshed_at',
          'refresh_key_version',
          'refreshed_by',
          'refreshed_for_request',
          // Named in the condition only: a session bound to a key is spent only with a proof by it (contract 3.17).
          'dpop_jkt',
        ],
        returns: ['ALL_NEW'],
      },
      { actions: ['PutItem'], keys: ['notification'] },
      { actions: ['UpdateItem'], keys: ['unreadCount'] },
    ],
    // The refresh tokens' tags and the sealed answers are keyed by the server secret.
    secret: true,
    signingKeys: 'sign',
  },
} as const satisfies Endpoint;
