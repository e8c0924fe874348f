import * as z from 'zod/mini';
import { phoneFields, phonePlan } from '../users/phone-number.js';
import { userTypeField } from '../users/user-types.js';

// The body of passkeys/login/options (API contract 3.16): a phone typed, or none (a discoverable
// credential). Its own module: the phone's numbering plan is bundled only where a phone is taken.

export const passkeyLoginOptionsBody = z.lazy(() => {
  const { dial_code, phone_number } = phoneFields();
  return z
    .object({ dial_code: z.optional(dial_code), phone_number: z.optional(phone_number), user_type: z.optional(userTypeField()) })
    .check(
      z.superRefine(async (body, context) => {
        if ((body.dial_code === undefined) !== (body.phone_number === undefined)) {
          context.addIssue({ code: 'custom', path: ['phone_number'], message: 'dial_code and phone_number go together, or neither' });
        } else if (body.dial_code !== undefined && !(await phonePlan()).toE164(body.dial_code, body.phone_number ?? '')) {
          context.addIssue({ code: 'custom', path: ['phone_number'], message: 'is not a valid number for this dial code' });
        }
      }),
    );
});

export type PasskeyLoginOptionsInput = z.output<typeof passkeyLoginOptionsBody>;
