import type { Endpoint } from '../http/endpoint.js';
import { logoutBody } from '../sessions/logout-input.js';
import { logoutResult } from '../sessions/logout-result.js';
import { keepAndRecallAnswers, readCompanyAndSession, recordUseAndEndSessions } from './grant-parts.js';

export const logoutEndpoint = {
  operationId: 'logout',
  method: 'POST',
  path: '/wallet/v3/auth/logout',
  summary: 'End sessions: this one, every other one, or all',
  tag: 'auth',
  description: () =>
    'Ends sessions of the token’s user. scope "current" (the default, also when the body is empty) ends the ' +
    'presented token; "others" every other session of the user; "all" every session, this one included. ' +
    'Answers how many sessions ended. An ended token answers 401 on its next call.',
  auth: 'required',
  endsOwnSession: true,
  body: logoutBody,
  // Contract 3.5: no body means scope "current".
  bodyRequired: false,
  result: logoutResult,
  errors: [],
  examples: {
    request: { scope: 'others' },
    result: { message: 'Logged out of every other session', revoked: 2 },
  },
  grants: {
    table: [keepAndRecallAnswers, readCompanyAndSession, { actions: ['Query'], keys: ['session'] }, recordUseAndEndSessions],
    // The Idempotency-Key's answer is stored sealed under a key derived from the server secret.
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
