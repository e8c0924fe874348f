import * as z from 'zod/mini';

export const loginPhoneResult = z.lazy(() =>
  z.object({
    message: z.string(),
    expires_in: z.int().check(z.meta({ description: 'Seconds the code stays valid' })),
  }),
);

export type LoginPhoneResult = z.output<typeof loginPhoneResult>;
