import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { amountField, currencyField } from '../lib/authorizations/payment-fields.js';
import { type CompanySettings, EVERY_COUNTRY_WARNING } from '../lib/companies/companies.js';
import {
  COMPANY_LIMITS,
  type CompanyLimitAttribute,
  type CompanyLimits,
  companyLimits,
  isCompanyLimitValue,
} from '../lib/companies/company-limits.js';
import { smsCountryCode, unknownSmsCountries } from '../lib/companies/sms-countries.js';
import type { Config } from '../lib/config.js';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { webauthnProblems } from '../lib/passkeys/webauthn-settings.js';
import type { SmsSize } from '../lib/sms/sms-segments.js';
import type { SmsTextChanges } from '../lib/sms/sms-text.js';
import type { CompanyRecord } from '../lib/store/company-store.js';

// The company settings the operator commands take (company:create, company:update), checked the
// same way by both, by the rules the back office's company/update applies too (lib/companies/).
// Each command prints a JSON object as its last line; problems go to stderr.

export class OptionError extends Error {}

/**
 * `--company ID --user USER_ID`, as the commands about one user take them (user:disable, user:export,
 * user:restore): both 32 hex characters, kept lower-case; undefined when either is missing or malformed.
 */
export function companyAndUserOptions(argv: string[]): { companyId: string; userId: string } | undefined {
  let values: { company?: string | undefined; user?: string | undefined };
  try {
    values = parseArgs({ args: argv, options: { company: { type: 'string' }, user: { type: 'string' } } }).values;
  } catch {
    return undefined;
  }
  const companyId = values.company?.trim().toLowerCase() ?? '';
  const userId = values.user?.trim().toLowerCase() ?? '';
  return HEX_ID_PATTERN.test(companyId) && HEX_ID_PATTERN.test(userId) ? { companyId, userId } : undefined;
}

/** "IN,US" or "all" as sms_countries: ISO 3166 alpha-2 codes that have phone numbers. */
export async function smsCountriesOption(value: string | undefined): Promise<CompanySettings['sms_countries']> {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'all') return 'all';
  const codes = value.split(',').map(smsCountryCode);
  const unknown = await unknownSmsCountries(codes);
  if (unknown.length || codes.length === 0) {
    throw new OptionError(
      `--sms-countries takes ISO 3166 alpha-2 codes with phone numbers (such as IN,US) or all; not ${unknown.join(', ') || 'empty'}`,
    );
  }
  return codes;
}

/**
 * --sms-payment-limit EUR=100,USD=50.25 (what SMS-strength sessions may approve in 24 hours per
 * currency, contract 3.15) or none (no payment from an SMS-strength session, the default).
 */
export function smsPaymentLimitOption(value: string | undefined): Record<string, string> | 'none' | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === 'none') return 'none';
  const limits: Record<string, string> = {};
  for (const part of value.split(',')) {
    const [currency = '', amount = '', ...rest] = part.trim().split('=');
    const checkedCurrency = z.safeParse(currencyField, currency);
    const checkedAmount = z.safeParse(amountField, amount);
    if (rest.length || !checkedCurrency.success || !checkedAmount.success)
      throw new OptionError(
        `--sms-payment-limit takes CURRENCY=AMOUNT,... (ISO 4217, a decimal above 0) or none; not ${JSON.stringify(part)}`,
      );
    limits[checkedCurrency.data] = checkedAmount.data;
  }
  return limits;
}

/** on|off as require_verified_phone. */
export function onOffOption(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new OptionError(`--${name} takes on or off`);
}

/** The company limits' options (company-limits.ts, where each one's least value is), each N or "default" (the configured one). */
export const LIMIT_OPTIONS: Record<string, { attribute: CompanyLimitAttribute; min: number }> = Object.fromEntries(
  Object.entries(COMPANY_LIMITS).map(([attribute, { min }]) => [
    attribute.replaceAll('_', '-'),
    { attribute: attribute as CompanyLimitAttribute, min },
  ]),
);

/** The limits given as options, as settings; undefined when none is given. */
export function limitsOption(values: Record<string, unknown>): CompanySettings['limits'] {
  const limits: NonNullable<CompanySettings['limits']> = {};
  for (const [option, { attribute, min }] of Object.entries(LIMIT_OPTIONS)) {
    const value = values[option];
    if (typeof value !== 'string') continue;
    const number = Number(value.trim());
    if (value.trim() === 'default') limits[attribute] = 'default';
    else if (value.trim() !== '' && isCompanyLimitValue(attribute, number)) limits[attribute] = number;
    else throw new OptionError(`--${option} takes a whole number of at least ${min}${min === 0 ? ' (0: no limit)' : ''}, or default`);
  }
  return Object.keys(limits).length ? limits : undefined;
}

/** The SMS text options of company:update; an empty value removes a setting (lib/sms/sms-text.ts checks the rest). */
export function smsTextOptions(values: {
  'sms-template'?: string[] | undefined;
  'sms-default-language'?: string | undefined;
  'sms-app-hash'?: string | undefined;
  'sms-webotp-domain'?: string | undefined;
}): SmsTextChanges | undefined {
  const orNull = (value: string | undefined) => (value === undefined ? undefined : value.trim() === '' ? null : value.trim());
  const templates = values['sms-template']?.map((option) => {
    const separator = option.indexOf('=');
    if (separator < 1) throw new OptionError(`--sms-template takes LANG=TEXT (LANG= removes one); not ${JSON.stringify(option)}`);
    const text = option.slice(separator + 1);
    return { language: option.slice(0, separator), text: text === '' ? null : text };
  });
  const changes: SmsTextChanges = {
    ...(templates ? { templates } : {}),
    ...(values['sms-default-language'] !== undefined ? { default_language: orNull(values['sms-default-language']) } : {}),
    ...(values['sms-app-hash'] !== undefined ? { app_hash: orNull(values['sms-app-hash']) } : {}),
    ...(values['sms-webotp-domain'] !== undefined ? { webotp_domain: orNull(values['sms-webotp-domain']) } : {}),
  };
  return Object.keys(changes).length ? changes : undefined;
}

/** Tells the operator (a line to stderr each) how many SMS each message takes, as sent with the longest values. */
export function reportSmsSizes(sizes: Record<string, SmsSize>, warnings: string[], err: (line: string) => void = console.error): void {
  for (const [language, size] of Object.entries(sizes)) {
    err(`sms text ${language}: ${size.segments} SMS (${size.encoding}, ${size.units} units with a 6-digit code)`);
  }
  for (const warning of warnings) err(`warning: ${warning}`);
}

/** Warns the operator (on stderr) when SMS may go to every country. */
export function warnIfEveryCountry(countries: string[] | undefined, err: (line: string) => void = console.error): void {
  if (!countries) {
    err(`warning: ${EVERY_COUNTRY_WARNING}; limit it with --sms-countries (npm run company:update -- --company ID --sms-countries IN,US).`);
  }
}

/** The settings as the command prints them, with the limits in force (the company's own or the default). */
export function printedSettings(company: CompanyRecord, config: Pick<Config, 'otp'>) {
  const limits: CompanyLimits = companyLimits(company, config);
  return {
    company_id: company.company_id,
    status: company.status,
    require_verified_phone: company.require_verified_phone ?? false,
    sms_countries: company.sms_countries ?? 'all',
    sms_per_hour: limits.smsPerHour,
    sms_per_prefix_per_hour: limits.smsPerPrefixPerHour,
    sends_per_address_per_hour: limits.sendsPerAddressPerHour,
    verifies_per_address: limits.verifiesPerAddress,
    // Only for a company that has its own SMS text or payment limit: the others print as they always did.
    ...(company.sms_payment_limit ? { sms_payment_limit: company.sms_payment_limit } : {}),
    ...(company.require_dpop ? { require_dpop: true } : {}),
    ...(company.sms_text ? { sms_text: company.sms_text } : {}),
    ...(company.webauthn ? { webauthn: company.webauthn } : {}),
  };
}

/** --webauthn-rp-id DOMAIN with --webauthn-origins O1,O2 (contract 3.16), or --webauthn-rp-id none to remove them. */
export function webauthnOption(rpId: string | undefined, origins: string | undefined): CompanySettings['webauthn'] {
  if (rpId === undefined && origins === undefined) return undefined;
  if (rpId?.trim() === 'none' && origins === undefined) return 'none';
  if (rpId === undefined || origins === undefined)
    throw new OptionError('--webauthn-rp-id and --webauthn-origins go together (or --webauthn-rp-id none)');
  const settings = {
    rp_id: rpId.trim(),
    origins: origins
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  };
  const problems = webauthnProblems(settings);
  if (problems.length) throw new OptionError(problems.map(({ field, detail }) => `${field}: ${detail}`).join('\n'));
  return settings;
}
