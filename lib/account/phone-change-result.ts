import * as z from 'zod/mini';

/** What phone/change answers (API contract 3.11). */
export const userPhoneChangeResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many other sessions of the user ended' })),
});

export type UserPhoneChangeResult = z.output<typeof userPhoneChangeResult>;
