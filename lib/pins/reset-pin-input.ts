import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { pin } from './pin-field.js';
import { pinTypeField } from './set-pin.js';

// The reset_pin body (API contract 3.7): which PIN, the new one, and a proof of the phone (or a
// session that began by OTP login a short while ago).

export const resetPinBody = z.lazy(() =>
  z.object({
    pin_type: pinTypeField,
    new_pin: pin(),
    phone_verification_token: z.optional(
      z.string().check(
        z.regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be a verification_token from verify_otp'),
        z.meta({
          description:
            'A verification_token of an otp_type 2 code for the user’s own phone, verified while presenting this user’s token. ' +
            'Not needed when the presenting session began by OTP login a short while ago.',
        }),
      ),
    ),
  }),
);

export type ResetPinInput = z.output<typeof resetPinBody>;
export type ResetPinCall = Call<ResetPinInput, Record<string, never>, Principal>;
