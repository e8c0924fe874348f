import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { heldChangeResult } from '../pending-changes/held-change-result.js';

// The user/delete body (API contract 3.11): none needed; the fresh login is the proof.

export const userDeleteBody = z.lazy(() => z.object({}));

export type UserDeleteCall = Call<z.output<typeof userDeleteBody>, Record<string, never>, Principal>;

const deletedNow = z.object({
  message: z.string(),
  erase_after: z.int().check(z.meta({ description: 'UNIX seconds: when the account is erased, unless an operator restores it before' })),
});

/** Deleted at once (a fresh strong session), or held (an SMS-strength one, contract 3.15 second reading). */
export const userDeleteResult = z.lazy(() =>
  z.union([
    deletedNow.check(z.meta({ description: 'a strong session proven under STEP_UP_MAX_AGE_SECONDS ago: deleted at once' })),
    heldChangeResult.check(
      z.meta({
        description:
          'an SMS-strength session: the deletion waits PHONE_CHANGE_HOLD_HOURS, cancellable from any session; once due it lands at the next profile read or PIN login, and the phone and email stay claimed until erasure',
      }),
    ),
  ]),
);

export type UserDeleteResult = z.output<typeof userDeleteResult>;
