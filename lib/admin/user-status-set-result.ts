import * as z from 'zod/mini';

export const userStatusSetResult = z.object({
  message: z.string(),
  status_id: z.int().check(z.meta({ description: 'The user’s status now: 2 disabled, 1 active' })),
  revoked: z.int().check(z.meta({ description: 'How many sessions ended (none when enabling)' })),
});

export type UserStatusSetResult = z.output<typeof userStatusSetResult>;
