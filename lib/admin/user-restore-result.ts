import * as z from 'zod/mini';

export const userRestoreResult = z.object({
  message: z.string(),
  status_id: z.int().check(z.meta({ description: 'The user’s status now: 1 active' })),
});

export type UserRestoreResult = z.output<typeof userRestoreResult>;
