import * as z from 'zod/mini';

export const userDeviceRemoveResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many sessions bound to the device ended' })),
});

export type UserDeviceRemoveResult = z.output<typeof userDeviceRemoveResult>;
