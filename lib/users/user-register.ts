import type { App } from '../app.js';
import type { Company } from '../companies/companies.js';
import { AppError, ErrorCodes, type FieldError, fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import { OtpType } from '../otp/otp-input.js';
import { referredSignUpNotification } from '../referrals/notifications.js';
import { newReferralCode, requireReferrer } from '../referrals/referral-codes.js';
import { hashPassword, hashPin, hashToken } from '../secrets/hashing.js';
import { issueAccessToken, type Principal, TOKEN_TYPE } from '../sessions/access-tokens.js';
import { MAX_SESSIONS_IN_TRANSACTION, sessionDeletes } from '../sessions/end-sessions.js';
import type { ItemKey } from '../store/keys.js';
import { phoneProofConsume } from '../store/proof-store.js';
import { notificationPut, referralCodePut } from '../store/referral-store.js';
import { deleteSessions, querySessions } from '../store/session-store.js';
import type { Table } from '../store/table.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from '../store/transactions.js';
import {
  emailClaimPut,
  emailClaimRelease,
  emailClaimTake,
  getPhoneClaim,
  getUser,
  phoneClaimMove,
  phoneClaimPut,
  referralCountIncrement,
  type UserRecord,
  userExistsCheck,
  userPhoneReclaimed,
  userPut,
} from '../store/user-store.js';
import type { UserRegisterInput } from './user-register-input.js';
import type { UserRegisterResult } from './user-register-result.js';
import { UserType } from './user-types.js';

/** What the registration transaction's conditions guard, to name a failure. */
type RegistrationGuard =
  | 'user'
  | 'phone'
  | 'email'
  | 'referral_code'
  | 'session'
  | 'referrer'
  | 'notification'
  | 'parent'
  | 'proof'
  | 'holder'
  | 'holder_email';

const ACTIVE = 1;
const Defaults = { KYC_PENDING: 1, KYC_PROCESS_INITIATED: 1 } as const;

/**
 * Who registers a company's first employee: an operator at the command line
 * (npm run employee:create), recorded as cretaed_by "operator".
 */
export function operatorPrincipal(companyId: string): Principal {
  return { companyId, userId: 'operator', userType: UserType.EMPLOYEE, sessionId: '' };
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
  // 3 (phone reclaimed) is set only by a reclaim.
  if (byEmployee && input.status_id !== undefined && input.status_id !== 1 && input.status_id !== 2) {
    throw fieldError('BAD_REQUEST', 'status_id', 'must be 1 (active) or 2 (disabled)');
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
    status_id: (employee && input.status_id) || ACTIVE,
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
    // Set from the token, never from the body; a self-registered user created themselves.
    cretaed_by: employee?.userId ?? userId,
    created_at: Math.floor(now / 1000),
    updated_at: Math.floor(now / 1000),
  };
}

/** A phone held by a user who never proved it, taken over by a registration that proves it (contract 6). */
interface Reclaim {
  holder: UserRecord;
  /** The holder's session_version when read: the takeover fails if a session was granted since. */
  sessionVersion: number;
  sessions: ItemKey[];
}

/** The claim on the new user's email, and what becomes of the holder's when a phone is reclaimed. */
function emailWrites(table: Table, user: UserRecord, reclaim: Reclaim | undefined): LabelledItem<RegistrationGuard>[] {
  const { company_id: companyId, user_type: userType, user_id: userId, email } = user;
  const holder = reclaim?.holder;
  if (holder?.email && holder.email === email) {
    return [{ label: 'email', item: emailClaimTake(table, companyId, email, userType, userId, holder.user_id) }];
  }
  const writes: LabelledItem<RegistrationGuard>[] = [];
  if (holder?.email)
    writes.push({ label: 'holder_email', item: emailClaimRelease(table, companyId, holder.email, userType, holder.user_id) });
  if (email) writes.push({ label: 'email', item: emailClaimPut(table, companyId, email, userType, userId) });
  return writes;
}

/** Every record a new user needs, as one transaction whose conditions enforce the rules. */
function registrationWrites(
  app: Pick<App, 'table'>,
  user: UserRecord,
  session: TransactItem | undefined,
  now: number,
  proof: TransactItem | undefined,
  reclaim: Reclaim | undefined,
) {
  const { table } = app;
  const companyId = user.company_id;
  const writes: LabelledItem<RegistrationGuard>[] = [
    { label: 'user', item: userPut(table, user) },
    {
      label: 'phone',
      item: reclaim
        ? phoneClaimMove(table, companyId, user.phone_e164, user.user_type, user.user_id, reclaim.holder.user_id)
        : phoneClaimPut(table, companyId, user.phone_e164, user.user_type, user.user_id, user.status_id),
    },
    { label: 'referral_code', item: referralCodePut(table, companyId, user.referral_code, user.user_id) },
    ...emailWrites(table, user, reclaim),
  ];
  if (session) writes.push({ label: 'session', item: session });
  if (proof) writes.push({ label: 'proof', item: proof });
  // A transaction may touch an item once: a parent who is also the referrer or the holder is
  // already required to exist by that write.
  if (user.parent_user_id && user.parent_user_id !== user.referred_by && user.parent_user_id !== reclaim?.holder.user_id) {
    writes.push({ label: 'parent', item: userExistsCheck(table, companyId, user.parent_user_id) });
  }
  if (user.referred_by) {
    const notification = referredSignUpNotification(user.referred_by, user.user_id, user.first_name, now);
    writes.push(
      { label: 'referrer', item: referralCountIncrement(table, companyId, user.referred_by, Math.floor(now / 1000)) },
      { label: 'notification', item: notificationPut(table, companyId, notification, now) },
    );
  }
  if (reclaim) {
    const holderId = reclaim.holder.user_id;
    writes.push(
      { label: 'holder', item: userPhoneReclaimed(table, companyId, holderId, reclaim.sessionVersion, Math.floor(now / 1000)) },
      ...sessionDeletes(app, reclaim.sessions),
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

const invalidProof = () =>
  fieldError(
    'PHONE_NOT_VERIFIED',
    'phone_verification_token',
    'is not a valid proof for this phone and user type: unknown, expired, used, or issued for another',
  );

/**
 * What taking the phone over from its holder needs, or undefined when the holder proved it (a
 * verified holder is never displaced). Read strongly consistently, with the holder's sessions.
 */
async function reclaimFrom(app: App, user: UserRecord): Promise<Reclaim | undefined> {
  const claim = await getPhoneClaim(app.table, user.company_id, user.phone_e164, user.user_type, true);
  if (!claim) return undefined;
  // The holder and their sessions are independent reads: made side by side.
  const [holder, stored] = await Promise.all([
    getUser(app.table, user.company_id, claim.user_id, true),
    querySessions(app.table, user.company_id, claim.user_id),
  ]);
  if (!holder || holder.phone_verified === 1) return undefined;
  const sessions = stored.map(({ key }) => key);
  if (sessions.length > MAX_SESSIONS_IN_TRANSACTION) {
    // More than one transaction holds: end them first (the holder loses them even if this registration then fails).
    await deleteSessions(app.table, sessions.slice(MAX_SESSIONS_IN_TRANSACTION));
  }
  return { holder, sessionVersion: holder.session_version ?? 0, sessions: sessions.slice(0, MAX_SESSIONS_IN_TRANSACTION) };
}

/** The security events of a registration: the user, and a phone taken over with the sessions it ended. */
async function recordRegistration(
  app: App,
  origin: RequestOrigin | undefined,
  user: UserRecord,
  employee: Principal | undefined,
  reclaim: Reclaim | undefined,
): Promise<void> {
  const event = { company_id: user.company_id, user_id: user.user_id, phone_ref: await phoneRef(app.keys, user.phone_e164) };
  audit(app, origin, 'user_registered', {
    ...event,
    outcome: 'registered',
    user_type: user.user_type,
    phone_verified: user.phone_verified,
    registered_by: employee?.userId ?? 'self',
  });
  if (reclaim) {
    const holderId = reclaim.holder.user_id;
    audit(app, origin, 'phone_reclaimed', { ...event, outcome: 'reclaimed', from_user_id: holderId });
    audit(app, origin, 'sessions_revoked', { ...event, user_id: holderId, outcome: 'phone_reclaimed', revoked: reclaim.sessions.length });
  }
}

/** Rounds of the registration transaction: referral code collisions, and a reclaim raced by the holder. */
const MAX_ROUNDS = 6;

/**
 * Registers a user (API contract 3.1 and 6): the user, the uniqueness claims on phone and email,
 * the user's own referral code, the first session and, for a referred sign-up, the referrer's
 * counter and notification are written in one transaction, so concurrent duplicates produce
 * exactly one user and nothing is ever half-written. A phone proof is used up in the same
 * transaction (so a refused registration leaves it unused), and with it a phone held by a user
 * who never proved it is taken over: the claims move, the holder's status becomes 3 and every
 * session of theirs ends, all in that one write.
 */
export async function userRegister(
  app: App,
  company: Company,
  input: UserRegisterInput,
  principal: Principal | undefined,
  origin?: RequestOrigin,
): Promise<UserRegisterResult> {
  const employee = registeringEmployee(input, principal);
  const companyId = company.company_id;
  if (company.require_verified_phone && !employee && !input.phone_verification_token) {
    throw fieldError('PHONE_NOT_VERIFIED', 'phone_verification_token', 'is required: this company registers proven phones only');
  }
  const referrerId = input.referral_code ? await requireReferrer(app.table, companyId, input.referral_code) : undefined;

  const [password_hash, login_pin_hash, transaction_pin_hash] = await Promise.all([
    hashPassword(input.password),
    hashPin(app.keys, input.login_pin),
    hashPin(app.keys, input.transaction_pin),
  ]);
  const proofHash = input.phone_verification_token ? hashToken(input.phone_verification_token) : undefined;

  let reclaim: Reclaim | undefined;
  for (let round = 1; ; round++) {
    const now = app.clock.now();
    const hashes = { password_hash, login_pin_hash, transaction_pin_hash };
    const user = newUserRecord(company, input, hashes, employee, referrerId, newReferralCode(), now, proofHash !== undefined);
    const { token, write: session } = issueAccessToken(app, companyId, user.user_id, user.user_type);
    const proof =
      proofHash &&
      phoneProofConsume(app.table, companyId, proofHash, {
        phoneE164: user.phone_e164,
        userType: user.user_type,
        otpType: OtpType.PHONE_VERIFICATION,
        now: Math.floor(now / 1000),
      });
    try {
      // Only an active user gets a session: one registered as disabled gets a token that is already ended.
      await writeTransaction(
        app.table,
        registrationWrites(app, user, user.status_id === ACTIVE ? session : undefined, now, proof, reclaim),
      );
      await recordRegistration(app, origin, user, employee, reclaim);
      return {
        message: 'User registered successfully',
        token: { type: TOKEN_TYPE, token },
        user_id: user.user_id,
        referral_code: user.referral_code,
      };
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = error.labels as RegistrationGuard[];
      if (failed.includes('proof')) throw invalidProof();
      if (round >= MAX_ROUNDS) throw error;
      if (proof && (failed.includes('phone') || failed.includes('holder') || failed.includes('holder_email'))) {
        // The phone is held (or its holder changed since read): a proven phone may be taken over.
        reclaim = await reclaimFrom(app, user);
        if (reclaim && reclaim.holder.user_id === referrerId) {
          throw fieldError('INVALID_REFERRAL_CODE', 'referral_code', 'is the code of the user this phone is taken from');
        }
        if (reclaim) continue;
        throw alreadyRegistered(['phone', ...failed.filter((label) => label === 'email')]);
      }
      if (failed.includes('phone') || failed.includes('email')) throw alreadyRegistered(failed);
      if (failed.includes('referrer')) throw fieldError('INVALID_REFERRAL_CODE', 'referral_code', 'no user of this company has this code');
      if (failed.includes('parent')) throw fieldError('BAD_REQUEST', 'parent_user_id', 'no user of this company has this id');
      // Only a referral code (or a 128-bit id) collision is left: draw again.
    }
  }
}
