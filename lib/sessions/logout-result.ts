import * as z from 'zod/mini';

export const logoutResult = z.lazy(() =>
  z.object({
    message: z.string(),
    revoked: z.int().check(z.meta({ description: 'How many sessions ended' })),
  }),
);

export type LogoutResult = z.output<typeof logoutResult>;
