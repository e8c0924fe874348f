import type { Config } from '../config.js';
import type { CompanyRecord } from '../store/company-store.js';

// A company's own limits (set with npm run company:update or the back office's company/update),
// each falling back to the configured default: one number for every company fits none of them,
// from a pilot to 50 million users.

export interface CompanyLimits {
  /** Sends an hour for the whole company. */
  smsPerHour: number;
  /** Sends an hour to one number range; 0: no limit. */
  smsPerPrefixPerHour: number;
  /** Send requests an hour from one source address; 0: no limit. */
  sendsPerAddressPerHour: number;
  /** Verify attempts from one source address in the configured window; 0: no limit. */
  verifiesPerAddress: number;
}

export type CompanyLimitAttribute = 'sms_per_hour' | 'sms_per_prefix_per_hour' | 'sends_per_address_per_hour' | 'verifies_per_address';

/**
 * Each limit a company may set: the least value it takes (0: no limit, where a limit may be off;
 * the company's whole sends never), and the configured default it falls back to.
 */
type OtpSettings = Config['otp'];
/** The OTP settings that are numbers: a limit's configured default is one. */
type NumericOtpSetting = { [Name in keyof OtpSettings]: OtpSettings[Name] extends number ? Name : never }[keyof OtpSettings];

export const COMPANY_LIMITS: Record<CompanyLimitAttribute, { min: number; configured: NumericOtpSetting }> = {
  sms_per_hour: { min: 1, configured: 'sendsPerCompanyPerHour' },
  sms_per_prefix_per_hour: { min: 0, configured: 'sendsPerPrefixPerHour' },
  sends_per_address_per_hour: { min: 0, configured: 'sendsPerAddressPerHour' },
  verifies_per_address: { min: 0, configured: 'verifiesPerAddress' },
};

export const COMPANY_LIMIT_ATTRIBUTES = Object.keys(COMPANY_LIMITS) as CompanyLimitAttribute[];

/** Whether a company may set the limit to this value: a whole number of at least its min. */
export function isCompanyLimitValue(attribute: CompanyLimitAttribute, value: number): boolean {
  return Number.isSafeInteger(value) && value >= COMPANY_LIMITS[attribute].min;
}

export function companyLimits(company: Pick<CompanyRecord, CompanyLimitAttribute>, { otp }: Pick<Config, 'otp'>): CompanyLimits {
  const limit = (attribute: CompanyLimitAttribute) => company[attribute] ?? otp[COMPANY_LIMITS[attribute].configured];
  return {
    smsPerHour: limit('sms_per_hour'),
    smsPerPrefixPerHour: limit('sms_per_prefix_per_hour'),
    sendsPerAddressPerHour: limit('sends_per_address_per_hour'),
    verifiesPerAddress: limit('verifies_per_address'),
  };
}

/** A limit in force: its value, the configured default, and whether the company set its own. */
export interface LimitInForce {
  value: number;
  default: number;
  source: 'company' | 'default';
}

/** Each limit in force for the company, by attribute, marked as the company's own or the default. */
export function limitsInForce(
  company: Pick<CompanyRecord, CompanyLimitAttribute>,
  { otp }: Pick<Config, 'otp'>,
): Record<CompanyLimitAttribute, LimitInForce> {
  return Object.fromEntries(
    COMPANY_LIMIT_ATTRIBUTES.map((attribute) => {
      const configured = otp[COMPANY_LIMITS[attribute].configured];
      const own = company[attribute];
      return [attribute, { value: own ?? configured, default: configured, source: own === undefined ? 'default' : 'company' }];
    }),
  ) as Record<CompanyLimitAttribute, LimitInForce>;
}
