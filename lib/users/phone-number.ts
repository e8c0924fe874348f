import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

// Phone numbers are checked with libphonenumber's full metadata (real number plans, not just
// lengths) and stored in E.164, the form SNS sends SMS to.

export const DIAL_CODE_PATTERN = /^\+[0-9]{1,4}$/;
/** What a client may send as phone_number: digits with the usual separators. */
export const PHONE_NUMBER_PATTERN = /^[0-9(][0-9 ().-]{3,19}$/;

/** The E.164 form of a dial code and national number, or undefined when they form no valid number. */
export function toE164(dialCode: string, phoneNumber: string): string | undefined {
  const callingCode = dialCode.slice(1);
  const parsed = parsePhoneNumberFromString(phoneNumber, { defaultCallingCode: callingCode });
  if (!parsed || parsed.countryCallingCode !== callingCode || !parsed.isValid()) return undefined;
  return parsed.number;
}
