import { getCountries } from 'libphonenumber-js';
import type { CompanySettings } from '../lib/companies/companies.js';

// The company settings the operator commands take (company:create, company:update), checked the
// same way by both. Each command prints a JSON object as its last line; problems go to stderr.

const COUNTRIES = new Set<string>(getCountries());

export class OptionError extends Error {}

/** "IN,US" or "all" as sms_countries: ISO 3166 alpha-2 codes that have phone numbers. */
export function smsCountriesOption(value: string | undefined): CompanySettings['sms_countries'] {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'all') return 'all';
  const codes = value.split(',').map((code) => code.trim().toUpperCase());
  const unknown = codes.filter((code) => !COUNTRIES.has(code));
  if (unknown.length || codes.length === 0) {
    throw new OptionError(
      `--sms-countries takes ISO 3166 alpha-2 codes with phone numbers (such as IN,US) or all; not ${unknown.join(', ') || 'empty'}`,
    );
  }
  return codes;
}

/** on|off as require_verified_phone. */
export function onOffOption(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new OptionError(`--${name} takes on or off`);
}

/** Warns the operator when SMS may go to every country. */
export function warnIfEveryCountry(countries: string[] | undefined): void {
  if (!countries) {
    console.error(
      'warning: SMS may go to every country. Each destination costs up to tens of cents a message and is the favourite target of SMS pumping; ' +
        'limit it with --sms-countries (npm run company:update -- --company ID --sms-countries IN,US).',
    );
  }
}

/** The settings as the command prints them. */
export function printedSettings(company: {
  company_id: string;
  status: string;
  require_verified_phone?: boolean | undefined;
  sms_countries?: string[] | undefined;
}) {
  return {
    company_id: company.company_id,
    status: company.status,
    require_verified_phone: company.require_verified_phone ?? false,
    sms_countries: company.sms_countries ?? 'all',
  };
}
