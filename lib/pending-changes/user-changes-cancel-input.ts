import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';

// The changes/cancel body (API contract 3.15), and phone/change/cancel's (3.11): a pending change's id.

export const userChangesCancelBody = z.lazy(() =>
  z.object({
    change_id: hexIdField('change_id of a pending change').check(
      z.meta({ description: 'The change_id a held change answered, or one listed in pending_changes' }),
    ),
  }),
);

export type UserChangesCancelInput = z.output<typeof userChangesCancelBody>;
export type UserChangesCancelCall = Call<UserChangesCancelInput, Record<string, never>, Principal>;
