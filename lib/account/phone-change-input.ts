import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';
import { phoneFields, withPhoneE164 } from '../users/phone-number.js';

// The phone/change body (API contract 3.11): the new number, and the proof that the caller got a
// code on it (otp_type 2, verified while presenting this user's token).

export const userPhoneChangeBody = z.lazy(() =>
  withPhoneE164(
    z.object({
      ...phoneFields(),
      // Optional in the schema so that its absence answers 400 code 14, as a bad one does (and as reset_pin's).
      phone_verification_token: z.optional(
        z.string().check(
          z.regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be a verification_token from verify_otp'),
          z.meta({
            description:
              'Required: a verification_token of an otp_type 2 code sent to the NEW number, verified while presenting this user’s token.',
          }),
        ),
      ),
      // Optional in the schema so that its absence answers 400 code 14 (contract 3.11, amended in round 5).
      login_pin: z.optional(
        z.string().check(
          z.regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits'),
          z.meta({
            description:
              'The user’s login PIN: required when the presenting session began by OTP login (the change then waits PHONE_CHANGE_HOLD_HOURS); counted toward its lock.',
          }),
        ),
      ),
    }),
  ),
);

export type UserPhoneChangeInput = z.output<typeof userPhoneChangeBody>;
export type UserPhoneChangeCall = Call<UserPhoneChangeInput, Record<string, never>, Principal>;
