import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';

// The logout body (API contract 3.5): optional; scope "current" (the default), "others" or "all".

const SCOPES = 'current: this session (the default); others: every other session of the user; all: every session';

const scope = () => z.enum(['current', 'others', 'all'], { error: 'must be "current", "others" or "all"' });

export const logoutBody = z.lazy(() =>
  z.object({
    scope: z._default(scope(), 'current').check(z.meta({ description: SCOPES })),
  }),
);

export type LogoutInput = z.output<typeof logoutBody>;
export type LogoutCall = Call<LogoutInput, Record<string, never>, Principal>;
