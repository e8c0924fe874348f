import * as z from 'zod/mini';
import { heldChangeResult } from '../pending-changes/held-change-result.js';

export const deviceRemovedResult = z.object({
  message: z.string(),
  revoked: z.int().check(z.meta({ description: 'How many sessions bound to the device ended' })),
});

/** What devices/remove answers (API contract 3.6 and 3.15): removed at once, or a removal that waits. */
export const devicesRemoveResult = z.union([
  deviceRemovedResult.check(
    z.meta({
      description:
        'a device on probation, or a settled one from a strong session proven under STEP_UP_MAX_AGE_SECONDS ago: removed at once',
    }),
  ),
  heldChangeResult.check(
    z.meta({ description: 'a settled device, from an SMS-strength session: its removal waits PHONE_CHANGE_HOLD_HOURS' }),
  ),
]);

export type DevicesRemoveResult = z.output<typeof devicesRemoveResult>;
