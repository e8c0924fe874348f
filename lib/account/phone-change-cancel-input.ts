import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { hexIdField } from '../ids.js';

// The phone/change/cancel body (API contract 3.11, amended in round 5): the pending change's id.

export const userPhoneChangeCancelBody = z.lazy(() =>
  z.object({
    change_id: hexIdField('change_id from phone/change').check(z.meta({ description: 'The change_id phone/change answered' })),
  }),
);

export type UserPhoneChangeCancelInput = z.output<typeof userPhoneChangeCancelBody>;
export type UserPhoneChangeCancelCall = Call<UserPhoneChangeCancelInput, Record<string, never>, Principal>;
