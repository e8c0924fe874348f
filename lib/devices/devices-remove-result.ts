import * as z from 'zod/mini';

export const devicesRemoveResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many sessions bound to the device ended' })),
});

export type DevicesRemoveResult = z.output<typeof devicesRemoveResult>;
