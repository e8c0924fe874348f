import * as z from 'zod/mini';

/** What a change that waits answers (API contract 3.15): the same shape for every kind. */
export const heldChangeResult = z.object({
  message: z.string(),
  pending: z.literal(1),
  change_id: z.string().check(z.meta({ description: 'The pending change: POST /wallet/v3/user/changes/cancel takes it' })),
  effective_at: z.int().check(z.meta({ description: 'UNIX seconds from which it takes effect unless cancelled' })),
});

export type HeldChangeResult = z.output<typeof heldChangeResult>;
