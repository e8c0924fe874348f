import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';
import { actionFields } from './action-target.js';

// POST /wallet/v3/admin/users/sessions/end (API contract 3.14): one session of the user, or all.

export const userSessionsEndBody = z.lazy(() =>
  z.object({
    ...actionFields(),
    sid: z.optional(
      hexIdField('session id').check(
        z.meta({ description: 'The session to end (its access token’s sid, as the view lists it); absent: every session of the user' }),
      ),
    ),
  }),
);

export type UserSessionsEndInput = z.output<typeof userSessionsEndBody>;
export type UserSessionsEndCall = Call<UserSessionsEndInput, Record<string, never>, Principal>;
