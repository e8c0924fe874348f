import * as z from 'zod/mini';
import { PENDING_CHANGE_KINDS } from '../store/pending-change-store.js';

/** What changes/cancel (and phone/change/cancel) answers: the change is over, and which kind it was. */
export const userChangesCancelResult = z.object({
  message: z.string(),
  kind: z.enum(PENDING_CHANGE_KINDS).check(z.meta({ description: 'The kind of the change cancelled' })),
});

export type UserChangesCancelResult = z.output<typeof userChangesCancelResult>;
