import type { App } from '../app.js';
import type { Company } from '../companies/companies.js';
import { AppError, ErrorCodes, type FieldError, fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { referredSignUpNotification } from '../referrals/notifications.js';
import { newReferralCode, requireReferrer } from '../referrals/referral-codes.js';
import { hashPassword, hashPin } from '../secrets/hashing.js';
import { notificationPut, referralCodePut } from '../store/referral-store.js';
import type { Table } from '../store/table.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from '../store/transactions.js';
import { emailClaimPut, phoneClaimPut, referralCountIncrement, type UserRecord, userExistsCheck, userPut } from '../store/user-store.js';
import { issueAccessToken, type Principal, TOKEN_TYPE } from '../tokens/access-tokens.js';
import type { UserRegisterInput } from './user-register-input.js';
import type { UserRegisterResult } from './user-register-result.js';
import { UserType } from './user-types.js';

/** What the registration transaction's conditions guard, to name a failure. */
type RegistrationGuard = 'user' | 'phone' | 'email' | 'referral_code' | 'token' | 'referrer' | 'notification' | 'parent';

/** A new random referral code is drawn this many times before a collision is treated as a fault. */
const REFERRAL_CODE_DRAWS = 5;

const Defaults = { STATUS_ACTIVE: 1, KYC_PENDING: 1, KYC_PROCESS_INITIATED: 1 } as const;

/**
 * Who registers a company's first employee: an operator at the command line
 * (npm run employee:create), recorded as cretaed_by "operator".
 */
export function operatorPrincipal(companyId: string): Principal {
  return { companyId, userId: 'operator', userType: UserType.EMPLOYEE };
}

/**
 * Only an employee of the company may register an employee. An employee's token also lets
 * the caller set KYC and status fields; anyone else registers as themselves, pending KYC.
 */
function registeringEmployee(input: UserRegisterInput, principal: Principal | undefined): Principal | undefined {
  const byEmployee = principal?.userType === UserType.EMPLOYEE ? principal : undefined;
  if (input.user_type === UserType.EMPLOYEE) {
    if (!principal) throw new AppError('UNAUTHORIZED', { detail: "registering an employee needs an employee's token" });
    if (!byEmployee) throw new AppError('FORBIDDEN', { detail: 'only an employee may register an employee' });
  }
  return byEmployee;
}

function newUserRecord(
  company: Company,
  input: UserRegisterInput,
  hashes: Pick<UserRecord, 'password_hash' | 'login_pin_hash' | 'transaction_pin_hash'>,
  employee: Principal | undefined,
  referrerId: string | undefined,
  referralCode: string,
  now: number,
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
    status_id: (employee && input.status_id) || Defaults.STATUS_ACTIVE,
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
    // Set from the token, never from the body; a self-registered user created themselves.
    cretaed_by: employee?.userId ?? userId,
    created_at: Math.floor(now / 1000),
    updated_at: Math.floor(now / 1000),
  };
}

/** Every record a new user needs, as one transaction whose conditions enforce the rules. */
function registrationWrites(table: Table, user: UserRecord, tokenWrite: TransactItem, now: number) {
  const companyId = user.company_id;
  const writes: LabelledItem<RegistrationGuard>[] = [
    { label: 'user', item: userPut(table, user) },
    { label: 'phone', item: phoneClaimPut(table, companyId, user.phone_e164, user.user_type, user.user_id) },
    { label: 'referral_code', item: referralCodePut(table, companyId, user.referral_code, user.user_id) },
    { label: 'token', item: tokenWrite },
  ];
  if (user.email) {
    writes.push({ label: 'email', item: emailClaimPut(table, companyId, user.email, user.user_type, user.user_id) });
  }
  if (user.parent_user_id) {
    writes.push({ label: 'parent', item: userExistsCheck(table, companyId, user.parent_user_id) });
  }
  if (user.referred_by) {
    const notification = referredSignUpNotification(user.referred_by, user.user_id, user.first_name, now);
    writes.push(
      { label: 'referrer', item: referralCountIncrement(table, companyId, user.referred_by, Math.floor(now / 1000)) },
      { label: 'notification', item: notificationPut(table, companyId, notification, now) },
    );
  }
  return writes;
}

function alreadyRegistered(failed: RegistrationGuard[]): AppError {
  const code = ErrorCodes.ALREADY_REGISTERED.code;
  const fields: FieldError[] = [];
  if (failed.includes('phone')) fields.push({ code, field: 'phone_number', detail: 'is already registered for this user type' });
  if (failed.includes('email')) fields.push({ code, field: 'email', detail: 'is already registered for this user type' });
  return new AppError('ALREADY_REGISTERED', { detail: 'identity already registered', fields });
}

/**
 * Registers a user (API contract 3.1): the user, the uniqueness claims on phone and email,
 * the user's own referral code, the first access token and, for a referred sign-up, the
 * referrer's counter and notification are written in one transaction, so concurrent
 * duplicates produce exactly one user and nothing is ever half-written.
 */
export async function userRegister(
  app: App,
  company: Company,
  input: UserRegisterInput,
  principal: Principal | undefined,
): Promise<UserRegisterResult> {
  const employee = registeringEmployee(input, principal);
  const companyId = company.company_id;
  const referrerId = input.referral_code ? await requireReferrer(app.table, companyId, input.referral_code) : undefined;

  const [password_hash, login_pin_hash, transaction_pin_hash] = await Promise.all([
    hashPassword(input.password),
    hashPin(app.keys, input.login_pin),
    hashPin(app.keys, input.transaction_pin),
  ]);

  for (let draw = 1; ; draw++) {
    const now = app.clock.now();
    const hashes = { password_hash, login_pin_hash, transaction_pin_hash };
    const user = newUserRecord(company, input, hashes, employee, referrerId, newReferralCode(), now);
    const { token, write: tokenWrite } = issueAccessToken(app, companyId, user.user_id, user.user_type);
    try {
      await writeTransaction(app.table, registrationWrites(app.table, user, tokenWrite, now));
      return {
        message: 'User registered successfully',
        token: { type: TOKEN_TYPE, token },
        user_id: user.user_id,
        referral_code: user.referral_code,
      };
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = error.labels as RegistrationGuard[];
      if (failed.includes('phone') || failed.includes('email')) throw alreadyRegistered(failed);
      if (failed.includes('referrer')) throw fieldError('INVALID_REFERRAL_CODE', 'referral_code', 'no user of this company has this code');
      if (failed.includes('parent')) throw fieldError('BAD_REQUEST', 'parent_user_id', 'no user of this company has this id');
      // Only a referral code (or a 128-bit id) collision is left: draw again.
      if (draw >= REFERRAL_CODE_DRAWS) throw error;
    }
  }
}
