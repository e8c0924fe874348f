import { fieldError } from '../errors.js';
import { type PhoneFacts, phonePlan } from '../users/phone-number.js';
import type { Company } from './companies.js';

// Where SMS may go (API contract 3.2 and 6): the company's countries, and only numbers a mobile
// can answer. Checked before any limit is spent: a refused destination is sent nothing and costs
// the phone nothing.

/** Line types that receive SMS: mobiles, and numbers a plan does not tell from mobiles (US, Canada). */
const SMS_LINE_TYPES = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

const notAllowed = (detail: string) =>
  fieldError('SMS_DESTINATION_NOT_ALLOWED', 'phone_number', detail, { event: { event: 'destination_refused' } });

/** The facts of a destination SMS may go to, or SMS_DESTINATION_NOT_ALLOWED on phone_number. */
export async function allowedSmsDestination(company: Company, phoneE164: string): Promise<PhoneFacts> {
  const facts = (await phonePlan()).phoneFacts(phoneE164);
  if (!facts) throw notAllowed('is not a number SMS can be sent to');
  if (company.sms_countries && !(facts.country && company.sms_countries.includes(facts.country))) {
    throw notAllowed(`is in a country (${facts.country ?? 'unknown'}) this company does not send SMS to`);
  }
  if (!facts.type || !SMS_LINE_TYPES.has(facts.type)) {
    const type = facts.type ? facts.type.toLowerCase().replaceAll('_', ' ') : 'unknown type of';
    throw notAllowed(`is a ${type} number, not a mobile one: SMS go to mobile lines only`);
  }
  return facts;
}

/**
 * The number range a destination belongs to: its country code and the first digits of its
 * national number (docs/security.md, "Number ranges"). Pumping runs walk consecutive numbers of
 * a range; the per-range ceiling stops them.
 */
export function numberRange(facts: PhoneFacts, digits: number): string {
  return `+${facts.countryCallingCode}${facts.nationalNumber.slice(0, digits)}`;
}
