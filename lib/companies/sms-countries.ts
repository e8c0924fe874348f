import { phonePlan } from '../users/phone-number.js';

// The countries a company's SMS may go to (API contract 6): ISO 3166 alpha-2 codes of countries
// that have phone numbers, or every country. One rule for the operator commands and the back office.
// It holds the numbering plan (loaded on first use): only what changes the countries imports it.

/** The alpha-2 code as the company keeps it: trimmed, upper case. */
export const smsCountryCode = (code: string): string => code.trim().toUpperCase();

/** Those of the codes (as smsCountryCode keeps them) that name no country with phone numbers ([]: none). */
export async function unknownSmsCountries(codes: readonly string[]): Promise<string[]> {
  // The numbering plan knows the countries: loaded on first use, as for a phone check.
  const known = new Set((await phonePlan()).countriesWithNumbers());
  return codes.filter((code) => !known.has(code));
}
