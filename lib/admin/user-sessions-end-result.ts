import * as z from 'zod/mini';

export const userSessionsEndResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many sessions ended' })),
});

export type UserSessionsEndResult = z.output<typeof userSessionsEndResult>;
