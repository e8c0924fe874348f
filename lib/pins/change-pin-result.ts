import * as z from 'zod/mini';
import { heldChangeResult } from '../pending-changes/held-change-result.js';

/** What change_pin and reset_pin answer at once: the PIN set, the other sessions ended. */
export const pinSetResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many other sessions of the user ended' })),
});

/** What change_pin and reset_pin answer (API contract 3.7 and 3.15): set at once, or held. */
export const changePinResult = z.union([
  pinSetResult.check(
    z.meta({ description: 'a strong session proven under STEP_UP_MAX_AGE_SECONDS ago (a reset with a phone proof): set at once' }),
  ),
  heldChangeResult.check(
    z.meta({
      description:
        'an SMS-strength session (or, for a reset, a fresh strong one without a phone proof): the new PIN waits PHONE_CHANGE_HOLD_HOURS; the current PIN stays the PIN until then',
    }),
  ),
]);

export type ChangePinResult = z.output<typeof changePinResult>;
