import type { Principal } from '../call.js';
import type { Company } from '../companies/companies.js';
import { AppError, fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { UserStatus } from '../store/user-status.js';
import type { UserRecord } from '../store/user-store.js';
import { UserType } from '../users/user-types.js';
import type { UserRegisterInput } from './user-register-input.js';

// The user item a registration writes (API contract 3.1 and 6), and who may set which of its fields.

const Defaults = { KYC_PENDING: 1, KYC_PROCESS_INITIATED: 1 } as const;

/**
 * Only an employee of the company may register an employee. An employee's token also lets
 * the caller set KYC and status fields; anyone else registers as themselves, pending KYC.
 */
export function registeringEmployee(input: UserRegisterInput, principal: Principal | undefined): Principal | undefined {
  const byEmployee = principal?.userType === UserType.EMPLOYEE ? principal : undefined;
  if (input.user_type === UserType.EMPLOYEE) {
    if (!principal) throw new AppError('UNAUTHORIZED', { detail: "registering an employee needs an employee's token" });
    if (!byEmployee) throw new AppError('FORBIDDEN', { detail: 'only an employee may register an employee' });
  }
  // PHONE_RECLAIMED is set only by a reclaim.
  if (byEmployee && input.status_id !== undefined && input.status_id !== UserStatus.ACTIVE && input.status_id !== UserStatus.DISABLED) {
    throw fieldError('BAD_REQUEST', 'status_id', 'must be 1 (active) or 2 (disabled)');
  }
  return byEmployee;
}

export function newUserRecord(
  company: Company,
  input: UserRegisterInput,
  hashes: Pick<UserRecord, 'password_hash' | 'login_pin_hash' | 'transaction_pin_hash'>,
  employee: Principal | undefined,
  referrerId: string | undefined,
  referralCode: string,
  now: number,
  phoneVerified: boolean,
): UserRecord {
  const userId = newId();
  return {
    user_id: userId,
    company_id: company.company_id,
    user_type: input.user_type,
    dial_code: input.dial_code,
    phone_number: input.phone_number,
    phone_e164: input.phone_e164,
    first_name: input.first_name,
    last_name: input.last_name,
    email: input.email,
    account_number_prefix: input.account_number_prefix,
    ...hashes,
    status_id: (employee && input.status_id) || UserStatus.ACTIVE,
    kyc_status: (employee && input.kyc_status) || Defaults.KYC_PENDING,
    kyc_process_status: (employee && input.kyc_process_status) || Defaults.KYC_PROCESS_INITIATED,
    birth_date: input.birth_date,
    image: input.image,
    country_id: input.country_id,
    location_point: input.location_point,
    device_type: input.device_type,
    device_id: input.device_id,
    device_unique_id: input.device_unique_id,
    parent_user_id: input.parent_user_id,
    referred_by: referrerId,
    referral_code: referralCode,
    referral_count: 0,
    phone_verified: phoneVerified ? 1 : 0,
    // The session written with the user is its first.
    session_version: 1,
    // A customer registered by staff: both PINs were chosen by the employee, so the user sets their own first (contract 3.15).
    ...(employee && input.user_type !== UserType.EMPLOYEE ? { login_pin_to_set: 1 as const, transaction_pin_to_set: 1 as const } : {}),
    // Set from the token, never from the body; a self-registered user created themselves.
    cretaed_by: employee?.userId ?? userId,
    created_at: Math.floor(now / 1000),
    updated_at: Math.floor(now / 1000),
  };
}
