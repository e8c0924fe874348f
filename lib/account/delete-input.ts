import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';

// The user/delete body (API contract 3.11): none needed; the fresh login is the proof.

export const userDeleteBody = z.lazy(() => z.object({}));

export type UserDeleteCall = Call<z.output<typeof userDeleteBody>, Record<string, never>, Principal>;

export const userDeleteResult = z.lazy(() =>
  z.object({
    message: z.string(),
    erase_after: z.int().check(z.meta({ description: 'UNIX seconds: when the account is erased, unless an operator restores it before' })),
  }),
);

export type UserDeleteResult = z.output<typeof userDeleteResult>;
