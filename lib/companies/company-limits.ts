import type { Config } from '../config.js';
import type { CompanyRecord } from '../store/company-store.js';

// A company's own limits (set with npm run company:update), each falling back to the configured
// default: one number for every company fits none of them, from a pilot to 50 million users.

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

export function companyLimits(company: Pick<CompanyRecord, CompanyLimitAttribute>, { otp }: Pick<Config, 'otp'>): CompanyLimits {
  return {
    smsPerHour: company.sms_per_hour ?? otp.sendsPerCompanyPerHour,
    smsPerPrefixPerHour: company.sms_per_prefix_per_hour ?? otp.sendsPerPrefixPerHour,
    sendsPerAddressPerHour: company.sends_per_address_per_hour ?? otp.sendsPerAddressPerHour,
    verifiesPerAddress: company.verifies_per_address ?? otp.verifiesPerAddress,
  };
}
