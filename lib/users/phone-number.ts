import * as z from 'zod/mini';

// Phone numbers are checked against the numbering plan (phone-plan.ts) and stored in E.164, the
// form SNS sends SMS to. The check is asynchronous: the plan is loaded on the first number.

const DIAL_CODE_PATTERN = /^\+[0-9]{1,4}$/;
/** What a client may send as phone_number: digits with the usual separators. */
const PHONE_NUMBER_PATTERN = /^[0-9(][0-9 ().-]{3,19}$/;

type PhonePlan = typeof import('./phone-plan.js');
let plan: Promise<PhonePlan> | undefined;

/**
 * The numbering plan, loaded once, on first use: a dynamic import, which the bundler keeps out
 * of the module's evaluation at import (a cold start's init), so the first call pays it.
 */
export function phonePlan(): Promise<PhonePlan> {
  plan ??= import('./phone-plan.js');
  return plan;
}

export type { PhoneFacts } from './phone-plan.js';

/** The dial_code and phone_number fields every phone-carrying body shares (built with the body, on first use). */
export const phoneFields = () => ({
  dial_code: z.string().check(z.regex(DIAL_CODE_PATTERN, 'must be + and 1 to 4 digits')),
  phone_number: z.string().check(z.trim(), z.regex(PHONE_NUMBER_PATTERN, 'must be 4 to 20 digits')),
});

type PhoneBody = { dial_code: string; phone_number: string };

/**
 * Adds the check that dial_code and phone_number form a valid number (reported on
 * phone_number, alongside every other field's problems) and its E.164 form as phone_e164.
 */
export function withPhoneE164<Schema extends z.ZodMiniType<PhoneBody>>(schema: Schema) {
  const checked = schema.check(
    z.superRefine(
      async (body: PhoneBody, context) => {
        if (!DIAL_CODE_PATTERN.test(body.dial_code) || !PHONE_NUMBER_PATTERN.test(body.phone_number.trim())) return;
        if (!(await phonePlan()).toE164(body.dial_code, body.phone_number)) {
          context.addIssue({ code: 'custom', path: ['phone_number'], message: 'is not a valid number for this dial code' });
        }
      },
      {
        when: ({ value }) => {
          const body = value as Partial<Record<keyof PhoneBody, unknown>> | null;
          return typeof body?.dial_code === 'string' && typeof body.phone_number === 'string';
        },
      },
    ),
  );
  return z.pipe(
    checked,
    z.transform(async (body: z.output<Schema>) => ({
      ...body,
      phone_e164: (await phonePlan()).toE164(body.dial_code, body.phone_number)!,
    })),
  );
}
