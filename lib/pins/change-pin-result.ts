import * as z from 'zod/mini';

/** What change_pin and reset_pin answer. */
export const changePinResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many other sessions of the user ended' })),
});

export type ChangePinResult = z.output<typeof changePinResult>;
