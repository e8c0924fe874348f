import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import * as z from 'zod/mini';

// Phone numbers are checked with libphonenumber's full metadata (real number plans, not just
// lengths) and stored in E.164, the form SNS sends SMS to.

const DIAL_CODE_PATTERN = /^\+[0-9]{1,4}$/;
/** What a client may send as phone_number: digits with the usual separators. */
const PHONE_NUMBER_PATTERN = /^[0-9(][0-9 ().-]{3,19}$/;

/** The E.164 form of a dial code and national number, or undefined when they form no valid number. */
export function toE164(dialCode: string, phoneNumber: string): string | undefined {
  const callingCode = dialCode.slice(1);
  let parsed: ReturnType<typeof parsePhoneNumberFromString>;
  try {
    parsed = parsePhoneNumberFromString(phoneNumber, { defaultCallingCode: callingCode });
  } catch {
    // libphonenumber throws on a calling code it does not know (+0, +999): no number is valid there.
    return undefined;
  }
  if (!parsed || parsed.countryCallingCode !== callingCode || !parsed.isValid()) return undefined;
  return parsed.number;
}

/** What the numbering plan says of a valid E.164 number: its country, line type and national digits. */
export interface PhoneFacts {
  /** ISO 3166 alpha-2; for shared calling codes (+1, +44, ...) the one the number's range belongs to. */
  country: string | undefined;
  /** MOBILE, FIXED_LINE_OR_MOBILE, FIXED_LINE, PREMIUM_RATE, TOLL_FREE, SHARED_COST, VOIP, ...; undefined when unknown. */
  type: string | undefined;
  countryCallingCode: string;
  nationalNumber: string;
}

export function phoneFacts(phoneE164: string): PhoneFacts | undefined {
  const parsed = parsePhoneNumberFromString(phoneE164);
  if (!parsed) return undefined;
  return {
    country: parsed.country,
    type: parsed.getType(),
    countryCallingCode: parsed.countryCallingCode,
    nationalNumber: parsed.nationalNumber,
  };
}

/** The dial_code and phone_number fields every phone-carrying body shares. */
export const phoneFields = {
  dial_code: z.string().check(z.regex(DIAL_CODE_PATTERN, 'must be + and 1 to 4 digits')),
  phone_number: z.string().check(z.trim(), z.regex(PHONE_NUMBER_PATTERN, 'must be 4 to 20 digits')),
};

type PhoneBody = { dial_code: string; phone_number: string };

/**
 * Adds the check that dial_code and phone_number form a valid number (reported on
 * phone_number, alongside every other field's problems) and its E.164 form as phone_e164.
 */
export function withPhoneE164<Schema extends z.ZodMiniType<PhoneBody>>(schema: Schema) {
  const checked = schema.check(
    z.superRefine(
      (body: PhoneBody, context) => {
        if (!DIAL_CODE_PATTERN.test(body.dial_code) || !PHONE_NUMBER_PATTERN.test(body.phone_number.trim())) return;
        if (!toE164(body.dial_code, body.phone_number)) {
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
    z.transform((body: z.output<Schema>) => ({ ...body, phone_e164: toE164(body.dial_code, body.phone_number)! })),
  );
}
