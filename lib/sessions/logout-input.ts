import * as z from 'zod/mini';

// The logout body (API contract 3.5): optional; scope "current" (the default), "others" or "all".

const SCOPES = 'current: this session (the default); others: every other session of the user; all: every session';

const scope = z.enum(['current', 'others', 'all'], { error: 'must be "current", "others" or "all"' });

export const logoutBody = z.object({
  scope: z._default(scope, 'current').check(z.meta({ description: SCOPES })),
});

export const logoutResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many sessions ended' })),
});

export type LogoutInput = z.output<typeof logoutBody>;
export type LogoutResult = z.output<typeof logoutResult>;
