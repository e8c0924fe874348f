import { randomInt } from 'node:crypto';
import type { App } from '../app-context.js';
import { CREDENTIAL_REPLAY_SECONDS, type Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { OtpType } from '../codes/otp-types.js';
import type { Company } from '../companies/companies.js';
import { deviceBindingOf, firstDeviceWrites } from '../devices/device-binding.js';
import { AppError, ErrorCodes, type FieldError, fieldError } from '../errors.js';
import { referredSignUpNotification } from '../notifications/referral-notifications.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import { samePins } from '../pins/distinct-pins.js';
import { newReferralCode, requireReferrer } from '../referrals/referral-codes.js';
import { hashPassword, hashPin, hashToken } from '../secrets/hashing.js';
import type { SessionTokens } from '../sessions/access-tokens.js';
import { grantSession, issueSession } from '../sessions/session-grant.js';
import { loginSessionKey } from '../sessions/session-key.js';
import { employeeRegistrar, OPERATOR } from '../staff/employee-register.js';
import { type ReclaimWrite, RegistrationRefused, writeRegistration } from '../store/registration-store.js';
import { UserStatus } from '../store/user-status.js';
import { getPhoneClaim, getUser, type UserRecord } from '../store/user-store.js';
import { requirePastBirthDate } from '../users/profile-fields.js';
import { UserType } from '../users/user-types.js';
import { newUserRecord, registeringEmployee } from './new-user-record.js';
import { auditReclaim, endReclaimedLater, phoneReclaim } from './phone-reclaim.js';
import type { UserRegisterCall, UserRegisterInput } from './user-register-input.js';
import type { UserRegisterResult } from './user-register-result.js';

/**
 * A registration by an operator at the command line (npm run employee:create), for a company's
 * first employee: recorded as cretaed_by "operator", from no address.
 */
export function operatorRegistration(company: Company, body: UserRegisterInput): UserRegisterCall {
  const principal = { companyId: company.company_id, userId: OPERATOR, userType: UserType.EMPLOYEE, sessionId: '' };
  return { body, query: {}, company, principal };
}

function alreadyRegistered(taken: { phone: boolean; email: boolean }): AppError {
  const code = ErrorCodes.ALREADY_REGISTERED.code;
  const fields: FieldError[] = [];
  if (taken.phone) fields.push({ code, field: 'phone_number', detail: 'is already registered for this user type' });
  if (taken.email) fields.push({ code, field: 'email', detail: 'is already registered for this user type' });
  return new AppError('ALREADY_REGISTERED', { detail: 'identity already registered', fields });
}

/** The answer to a registration: the user, their first session and referral code, and the device bound, if any. */
function registrationResult(
  user: Pick<UserRecord, 'user_id' | 'referral_code'>,
  tokens: SessionTokens,
  binding: { deviceKey: string } | undefined,
): UserRegisterResult {
  return {
    message: 'User registered successfully',
    ...tokens,
    user_id: user.user_id,
    ...(binding ? { device_key: binding.deviceKey } : {}),
    referral_code: user.referral_code,
  };
}

const invalidProof = () =>
  fieldError(
    'PHONE_NOT_VERIFIED',
    'phone_verification_token',
    'is not a valid proof for this phone and user type: unknown, expired, used, or issued for another',
  );

/** The security events of a registration: the user, and a phone taken over with the sessions it ended. */
async function recordRegistration(
  app: App,
  origin: RequestOrigin | undefined,
  user: UserRecord,
  employee: Principal | undefined,
  reclaim: ReclaimWrite | undefined,
): Promise<void> {
  const event = { company_id: user.company_id, user_id: user.user_id, phone_ref: await phoneRef(app.keys, user.phone_e164) };
  audit(app, origin, 'user_registered', {
    ...event,
    outcome: 'registered',
    user_type: user.user_type,
    phone_verified: user.phone_verified,
    registered_by: employee?.userId ?? 'self',
  });
  if (reclaim) auditReclaim(app, origin, event, reclaim);
}

/**
 * The user an earlier run of this same request (its Idempotency-Key) registered, when its answer
 * was lost (503 after the write was applied unseen): answered as then, with a new session of that
 * user (contract 3.10), rather than 409 for the caller's own registration. Only within
 * CREDENTIAL_REPLAY_SECONDS of the registration: later, whoever kept the request (a log, a proxy)
 * would mint a session of the user with it, so it is a duplicate like any other (409 code 7).
 */
async function registeredByThisRequest(
  app: App,
  user: UserRecord,
  input: UserRegisterCall['body'],
  idempotencyRef: string,
  dpopJkt: string | undefined,
): Promise<UserRegisterResult | undefined> {
  const claim = await getPhoneClaim(app.table, user.company_id, user.phone_e164, user.user_type, true);
  if (!claim || claim.registered_by_request !== idempotencyRef) return undefined;
  if (!(claim.registered_by_request_until !== undefined && epochSeconds(app.clock) < claim.registered_by_request_until)) return undefined;
  const registered = await getUser(app.table, user.company_id, claim.user_id, true);
  if (!registered) return undefined;
  // The device the first run bound in its transaction: its key follows from the user and the public key.
  const binding = deviceBindingOf(user.company_id, registered.user_id, input);
  const tokens = await grantSession(
    app,
    user.company_id,
    registered.user_id,
    registered.user_type,
    { began: 'register', deviceKey: binding?.deviceKey, acr: 'sms', dpopJkt },
    { terms: { phoneVerified: registered.phone_verified === 1 } },
  );
  return registrationResult(registered, tokens, binding);
}

/** Rounds of the registration transaction: referral code collisions, and a reclaim raced by the holder. */
const MAX_ROUNDS = 6;

/**
 * Registers a user (API contract 3.1 and 6): the user, the uniqueness claims on phone and email,
 * the user's own referral code, the first session and, for a referred sign-up, a shard of the
 * referrer's count and their notification are written in one transaction, so concurrent duplicates produce
 * exactly one user and nothing is ever half-written. A phone proof is used up in the same
 * transaction (so a refused registration leaves it unused), and with it a phone held by a user
 * who never proved it is taken over (phone-reclaim.ts): the claims move, the holder's status
 * becomes PHONE_RECLAIMED and every session of theirs ends, all in that one write.
 */
export async function userRegister(app: App, call: UserRegisterCall): Promise<UserRegisterResult> {
  const { body: sent, company, principal, origin, idempotencyRef } = call;
  requirePastBirthDate(sent, app.clock.now());
  // The transaction PIN is not the login PIN (contract 3.15, second reading).
  if (sent.transaction_pin === sent.login_pin) throw samePins('transaction_pin');
  const employee = registeringEmployee(sent, principal);
  // A customer registered by staff gets no device: the employee's hand holds it (contract 3.15, second reading).
  const input = employee && sent.user_type !== UserType.EMPLOYEE ? { ...sent, device_public_key: undefined } : sent;
  const companyId = company.company_id;
  // An employee only by an admin (on a strong session, with a reason) or the operator: recorded (contract 3.14).
  const registrar =
    employee && input.user_type === UserType.EMPLOYEE ? await employeeRegistrar(app, employee, input.reason, origin) : undefined;
  if (company.require_verified_phone && !employee && !input.phone_verification_token) {
    throw fieldError('PHONE_NOT_VERIFIED', 'phone_verification_token', 'is required: this company registers proven phones only');
  }
  // The new user's session key (DPoP, contract 3.17): never an employee's own, who registers someone else.
  const dpopJkt = employee ? undefined : await loginSessionKey(call, input.device_public_key);
  const referrerId = input.referral_code ? await requireReferrer(app.table, companyId, input.referral_code) : undefined;

  const [password_hash, login_pin_hash, transaction_pin_hash] = await Promise.all([
    hashPassword(input.password, app.hashCost.password),
    hashPin(app.keys, input.login_pin, app.hashCost.pin),
    hashPin(app.keys, input.transaction_pin, app.hashCost.pin),
  ]);
  const proofHash = input.phone_verification_token ? hashToken(input.phone_verification_token) : undefined;

  let reclaim: ReclaimWrite | undefined;
  for (let round = 1; ; round++) {
    const now = app.clock.now();
    const hashes = { password_hash, login_pin_hash, transaction_pin_hash };
    const user = newUserRecord(company, input, hashes, employee, referrerId, newReferralCode(), now, proofHash !== undefined);
    const binding = deviceBindingOf(companyId, user.user_id, input);
    if (binding) user.device_count = 1;
    const staffRecord = await registrar?.record(user.user_id);
    const { tokens, write: session } = await issueSession(app, companyId, user.user_id, user.user_type, {
      began: 'register',
      deviceKey: binding?.deviceKey,
      dpopJkt,
      // A registration proves a phone at most (contract 3.15): SMS-strength, though its device is settled.
      acr: 'sms',
    });
    try {
      await writeRegistration(app.table, {
        user,
        // Only an active user gets a session: one registered as disabled gets a token that is already ended.
        session: user.status_id === UserStatus.ACTIVE ? session : undefined,
        proof: proofHash ? { hash: proofHash, otpType: OtpType.PHONE_VERIFICATION } : undefined,
        notification: referrerId ? referredSignUpNotification(referrerId, user.user_id, user.first_name, now) : undefined,
        // A random shard of the referrer's count: sign-ups with one code meet on an item only by chance.
        referralCountShard: randomInt(app.config.referralCountShards),
        reclaim,
        device: binding
          ? firstDeviceWrites(app, companyId, { userId: user.user_id, userType: user.user_type }, binding, Math.floor(now / 1000)).map(
              ({ item }) => item,
            )
          : undefined,
        nowMs: now,
        // A retry of this request is answered this user's session for as long as a credential may be replayed.
        request: idempotencyRef ? { ref: idempotencyRef, until: Math.floor(now / 1000) + CREDENTIAL_REPLAY_SECONDS } : undefined,
        staffRecord: staffRecord?.writes,
      });
      if (staffRecord) registrar?.audit(staffRecord.record);
      if (reclaim) await endReclaimedLater(app, reclaim);
      await recordRegistration(app, origin, user, employee, reclaim);
      if (binding) audit(app, origin, 'device_bound', { company_id: companyId, user_id: user.user_id, outcome: 'bound' });
      return registrationResult(user, tokens, binding);
    } catch (error) {
      if (!(error instanceof RegistrationRefused)) throw error;
      const refused = error.reasons;
      // First, whether this request's own earlier run holds the phone: that run also used up its
      // proof, and a proven holder is never taken over, so neither refusal is the caller's answer.
      if ((refused.has('phone_taken') || refused.has('holder_changed')) && idempotencyRef) {
        const registered = await registeredByThisRequest(app, user, input, idempotencyRef, dpopJkt);
        if (registered) return registered;
      }
      if (refused.has('proof_invalid')) throw invalidProof();
      if (round >= MAX_ROUNDS) throw error;
      if (proofHash && (refused.has('phone_taken') || refused.has('holder_changed'))) {
        // The phone is held (or its holder changed since read): a proven phone may be taken over.
        reclaim = await phoneReclaim(app, user);
        if (reclaim) continue;
        throw alreadyRegistered({ phone: true, email: refused.has('email_taken') });
      }
      if (refused.has('phone_taken') || refused.has('email_taken')) {
        throw alreadyRegistered({ phone: refused.has('phone_taken'), email: refused.has('email_taken') });
      }
      if (refused.has('parent_unknown')) throw fieldError('BAD_REQUEST', 'parent_user_id', 'no user of this company has this id');
      // Only a referral code (or a 128-bit id) collision is left: draw again.
    }
  }
}
