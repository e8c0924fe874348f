import type { App } from '../app.js';
import { epochSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { AppError } from '../errors.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import { createSession, type Principal, TOKEN_TYPE } from '../sessions/access-tokens.js';
import { type ConsumeResult, consumeOtp, countWrongTry } from '../store/otp-store.js';
import { countPhoneFailure } from '../store/send-limit-store.js';
import { getPhoneClaim, markPhoneVerified } from '../store/user-store.js';
import { codeKey, currentOtpCodeHash, otpCodeHash } from './otp-codes.js';
import { OtpType, OWNER_ONLY_OTP_TYPES, type VerifyOtpInput } from './otp-input.js';
import type { VerifyOtpResult } from './otp-results.js';
import { phoneOwnerFor } from './phone-owner.js';
import { issuePhoneProof } from './phone-proofs.js';
import { countAddress, phoneLockedUntil } from './send-limits.js';

/**
 * Consumes the code if it matches. The HMAC is made with the current key; a code stored under
 * an older key (the secret was rotated since it was sent) is tried once more under its own.
 */
async function consumeMatching(app: App, companyId: string, input: VerifyOtpInput, now: number): Promise<ConsumeResult> {
  const key = codeKey(companyId, input);
  const { codeHash, keyVersion } = await currentOtpCodeHash(app.keys, companyId, input, input.otp);
  const result = await consumeOtp(app.table, key, codeHash, now, app.config.otp.maxAttempts);
  const storedVersion = result.consumed ? keyVersion : result.seen?.key_version;
  if (result.consumed || storedVersion === undefined || storedVersion === keyVersion) return result;
  const olderKey = await app.keys.atVersion('otp', storedVersion);
  if (!olderKey) return result;
  return consumeOtp(app.table, key, otpCodeHash(olderKey, companyId, input, input.otp), now, app.config.otp.maxAttempts);
}

/**
 * A right code of a type other than login proves the phone: the answer carries a proof
 * (verification_token). A phone-verification code verified with the token of the user who holds
 * that phone also marks that user phone-verified.
 */
async function proveThePhone(
  app: App,
  companyId: string,
  input: VerifyOtpInput,
  principal: Principal | undefined,
  ownerId: string | undefined,
) {
  if (input.otp_type === OtpType.PHONE_VERIFICATION && principal) {
    const claim = await getPhoneClaim(app.table, companyId, input.phone_e164, input.user_type);
    if (claim?.user_id === principal.userId) await markPhoneVerified(app.table, companyId, principal.userId);
  }
  const verificationToken = await issuePhoneProof(app, companyId, input, ownerId);
  return { message: 'OTP verified', verified: 1 as const, verification_token: verificationToken };
}

/**
 * Checks a code (API contract 3.3). A right code is consumed in the same atomic step that
 * checks it; a wrong one counts a try against that very send, so a code dies after
 * config.otp.maxAttempts wrong tries however many arrive at once, and a wrong code for the phone
 * across codes, so a phone locks after config.otp.failuresPerPhone of them in a window. Every
 * attempt counts against its source address.
 */
export async function verifyOtp(
  app: App,
  company: Company,
  input: VerifyOtpInput,
  principal: Principal | undefined,
  origin: RequestOrigin,
): Promise<VerifyOtpResult> {
  const ref = await phoneRef(app.keys, input.phone_e164);
  const event = { company_id: company.company_id, phone_ref: ref, otp_type: input.otp_type };
  try {
    const result = await checkCode(app, company, input, principal, origin);
    const userId = 'user_id' in result ? result.user_id : principal?.userId;
    audit(app, origin, 'code_verified', { ...event, user_id: userId, outcome: 'verified' });
    if (input.otp_type === OtpType.LOGIN) audit(app, origin, 'login', { ...event, user_id: userId, outcome: 'session_started' });
    return result;
  } catch (error) {
    if (error instanceof AppError && error.event) error.event.phoneRef = ref;
    const failed = error instanceof AppError && FAILED_CODES.get(error.errorName);
    if (failed) {
      const userId = principal?.userId ?? (error instanceof CodeFailure ? error.userId : undefined);
      audit(app, origin, 'code_failed', { ...event, user_id: userId, outcome: failed });
    }
    throw error;
  }
}

/** A code refused, naming the user it was sent for (when the phone has one) for the audit event. */
class CodeFailure extends AppError {
  constructor(
    name: 'OTP_INVALID' | 'OTP_EXPIRED' | 'OTP_ATTEMPTS_EXCEEDED',
    detail: string,
    readonly userId: string | undefined,
  ) {
    super(name, { detail });
  }
}

/** The refusals that are a code failing, and how each is recorded. */
const FAILED_CODES = new Map<string, string>([
  ['OTP_INVALID', 'wrong_code'],
  ['OTP_EXPIRED', 'no_live_code'],
  ['OTP_ATTEMPTS_EXCEEDED', 'locked'],
]);

async function checkCode(
  app: App,
  company: Company,
  input: VerifyOtpInput,
  principal: Principal | undefined,
  origin: RequestOrigin,
): Promise<VerifyOtpResult> {
  const companyId = company.company_id;
  const { maxAttempts, verifiesPerAddress, verifyAddressWindowSeconds, failureWindowSeconds } = app.config.otp;
  const now = epochSeconds(app.clock);
  // Independent checks, side by side: the owner (top-up, KYC), the source address, the phone's lockout.
  const [ownerId, , lockedUntil] = await Promise.all([
    OWNER_ONLY_OTP_TYPES.includes(input.otp_type) ? phoneOwnerFor(app.table, companyId, input, principal) : undefined,
    countAddress(app, origin.sourceIp, 'VERIFIES', verifiesPerAddress, verifyAddressWindowSeconds, now),
    phoneLockedUntil(app, companyId, input.phone_e164, now),
  ]);
  if (lockedUntil) throw new AppError('OTP_ATTEMPTS_EXCEEDED', { detail: 'too many wrong codes for this phone; it opens again later' });

  const result = await consumeMatching(app, companyId, input, now);

  if (result.consumed) {
    if (input.otp_type !== OtpType.LOGIN) return proveThePhone(app, companyId, input, principal, ownerId);
    const userId = result.record.user_id;
    if (!userId) throw new Error('login code stored without its user');
    // The code reached the phone: the user is phone-verified from this login on.
    const token = await createSession(app, companyId, userId, input.user_type, { phoneVerified: true });
    return { message: 'Logged in successfully', token: { type: TOKEN_TYPE, token }, user_id: userId };
  }

  // Absent and expired look alike: DynamoDB deletes expired items late, if at all.
  const seen = result.seen;
  if (!seen || seen.expires_at <= now) throw new CodeFailure('OTP_EXPIRED', 'no live code', seen?.user_id);
  if (seen.attempts >= maxAttempts) throw new CodeFailure('OTP_ATTEMPTS_EXCEEDED', 'code is dead', seen.user_id);
  await Promise.all([
    countWrongTry(app.table, codeKey(companyId, input), seen.send_id, maxAttempts),
    countPhoneFailure(app.table, companyId, input.phone_e164, now, failureWindowSeconds),
  ]);
  throw new CodeFailure('OTP_INVALID', 'wrong code', seen.user_id);
}
