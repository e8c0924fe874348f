import * as z from 'zod/mini';
import { heldChangeResult } from '../pending-changes/held-change-result.js';

/** What phone/change answers (API contract 3.11): the number changed, or (amended in round 5) a change that waits. */
export const userPhoneChangeMovedResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many other sessions of the user ended' })),
});

export const userPhoneChangeResult = z.union([
  userPhoneChangeMovedResult.check(
    z.meta({ description: 'a strong session proven under STEP_UP_MAX_AGE_SECONDS ago: the number changed at once' }),
  ),
  heldChangeResult.check(
    z.meta({
      description:
        'an SMS-strength session (an OTP login, with the login PIN; a PIN login on a device on probation): the change waits ' +
        'PHONE_CHANGE_HOLD_HOURS, then an OTP login to the new number completes it (void 7 days later)',
    }),
  ),
]);

export type UserPhoneChangeResult = z.output<typeof userPhoneChangeResult>;
