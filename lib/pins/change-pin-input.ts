import * as z from 'zod/mini';
import type { Call, Principal, RequestKey } from '../call.js';
import { pin } from './pin-field.js';
import { pinTypeField } from './set-pin.js';

// The change_pin body (API contract 3.7): which PIN, the current one, and a new one that follows
// the rules of registration (3.1) and differs from the current one.

export const changePinBody = z.lazy(() =>
  z
    .object({
      pin_type: pinTypeField,
      // Only its shape: the stored PIN was checked against the rules when it was set.
      current_pin: z.string().check(z.regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits')),
      new_pin: pin(),
    })
    .check(z.refine((body) => body.new_pin !== body.current_pin, { message: 'must differ from current_pin', path: ['new_pin'] })),
);

export type ChangePinInput = z.output<typeof changePinBody>;
export type ChangePinCall = Call<ChangePinInput, Record<string, never>, Principal> & RequestKey;
