import { getCountries, type MetadataJson, parsePhoneNumberFromString } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/metadata.max.json';

// The numbering plan: libphonenumber with its full metadata (real number plans and line types, not
// just lengths). Functions load this module on the first phone they check (phone-number.ts,
// phonePlan), not at import: it is a third of a phone function's bundle. A bundle's metadata holds
// what parsing, validation and line types read, not the formats (serverless/phone-metadata.cjs).

/** What the numbering plan says of a valid E.164 number: its country, line type and national digits. */
export interface PhoneFacts {
  /** ISO 3166 alpha-2; for shared calling codes (+1, +44, ...) the one the number's range belongs to. */
  country: string | undefined;
  /** MOBILE, FIXED_LINE_OR_MOBILE, FIXED_LINE, PREMIUM_RATE, TOLL_FREE, SHARED_COST, VOIP, ...; undefined when unknown. */
  type: string | undefined;
  countryCallingCode: string;
  nationalNumber: string;
}

/** The plan's answers from a metadata: the package's, or another a test holds beside it. */
export function numberingPlan(plan: MetadataJson) {
  return {
    /** The E.164 form of a dial code and national number, or undefined when they form no valid number. */
    toE164(dialCode: string, phoneNumber: string): string | undefined {
      const callingCode = dialCode.slice(1);
      let parsed: ReturnType<typeof parsePhoneNumberFromString>;
      try {
        parsed = parsePhoneNumberFromString(phoneNumber, { defaultCallingCode: callingCode }, plan);
      } catch {
        // libphonenumber throws on a calling code it does not know (+0, +999): no number is valid there.
        return undefined;
      }
      if (!parsed || parsed.countryCallingCode !== callingCode || !parsed.isValid()) return undefined;
      return parsed.number;
    },

    phoneFacts(phoneE164: string): PhoneFacts | undefined {
      const parsed = parsePhoneNumberFromString(phoneE164, plan);
      if (!parsed) return undefined;
      return {
        country: parsed.country,
        type: parsed.getType(),
        countryCallingCode: parsed.countryCallingCode,
        nationalNumber: parsed.nationalNumber,
      };
    },

    /** The ISO 3166 alpha-2 codes of the countries the plan has numbers for: those SMS can go to (lib/companies/sms-countries.ts). */
    countriesWithNumbers(): string[] {
      return getCountries(plan);
    },
  };
}

export const { toE164, phoneFacts, countriesWithNumbers } = numberingPlan(metadata);
