import { completePendingChange } from '../account/phone-change-completion.js';
import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { codeKey, otpCodeHash } from '../codes/otp-codes.js';
import { companyLimits } from '../companies/company-limits.js';
import { createBoundSession, deviceBindingOf } from '../devices/device-binding.js';
import { AppError, fieldError } from '../errors.js';
import { audit, phoneRef } from '../observability/audit.js';
import { warnNumber } from '../pending-changes/change-warning.js';
import type { VersionedKey } from '../secrets/server-keys.js';
import { grantSession } from '../sessions/session-grant.js';
import { loginSessionKey } from '../sessions/session-key.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { attemptIdOf, type TakenTry } from '../store/attempt-sets.js';
import { consumeCode, giveCodeTryBack, type OtpRecord, takeCodeTry } from '../store/otp-store.js';
import { givePhoneTryBack, takePhoneTry } from '../store/send-limit-store.js';
import { getPhoneClaim, markPhoneVerified } from '../store/user-store.js';
import { OtpType, OWNER_ONLY_OTP_TYPES } from './code-target.js';
import { phoneOwnerFor } from './phone-owner.js';
import { issuePhoneProof } from './phone-proofs.js';
import { countAddress } from './send-limits.js';
import type { VerifyOtpCall, VerifyOtpInput } from './verify-otp-input.js';
import type { VerifyOtpResult } from './verify-otp-result.js';

/**
 * Whether the code typed is the one stored, compared in constant time under the key version the
 * stored HMAC names (a code sent before the secret was rotated is checked with its own key).
 */
async function codeMatches(app: App, current: VersionedKey, companyId: string, input: VerifyOtpInput, record: OtpRecord): Promise<boolean> {
  const key = record.key_version === current.version ? current.key : await app.keys.atVersion('otp', record.key_version);
  if (!key) return false;
  const typed = Buffer.from(otpCodeHash(key, companyId, input, input.otp), 'base64url');
  const stored = Buffer.from(record.code_hash, 'base64url');
  return app.keys.equal(typed, stored);
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
  let proofUser = ownerId;
  if (input.otp_type === OtpType.PHONE_VERIFICATION && principal) {
    // Verified with a token: the proof names its user, and reset_pin and phone/change take it from them only.
    proofUser = principal.userId;
    const claim = await getPhoneClaim(app.table, companyId, input.phone_e164, input.user_type);
    if (claim?.user_id === principal.userId) await markPhoneVerified(app.table, companyId, principal.userId);
  }
  const verificationToken = await issuePhoneProof(app, companyId, input, proofUser);
  return { message: 'OTP verified', verified: 1 as const, verification_token: verificationToken };
}

/**
 * Checks a code (API contract 3.3). Every attempt takes a try of the code and a try of the phone
 * before it compares anything (checkCode), so a code dies after config.otp.maxAttempts wrong
 * tries and a phone locks after config.otp.failuresPerPhone wrong codes in a window, however many
 * guesses arrive at once; a right code gives the phone's try back and is used up once. Every
 * attempt counts against its source address.
 */
export async function verifyOtp(app: App, call: VerifyOtpCall, texts: TextDispatch): Promise<VerifyOtpResult> {
  const { body: input, company, principal, origin } = call;
  const ref = await phoneRef(app.keys, input.phone_e164);
  const event = { company_id: company.company_id, phone_ref: ref, otp_type: input.otp_type };
  try {
    const result = await checkCode(app, call, texts);
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

/** What one verification attempt has taken before it compares anything, and how to give it back. */
interface TakenTries {
  phone?: Omit<TakenTry, 'id'> & { windowStart: number };
  code?: { sendId: string };
}

async function checkCode(app: App, call: VerifyOtpCall, texts: TextDispatch): Promise<VerifyOtpResult> {
  const { body: input, company, principal, origin, idempotencyRef } = call;
  const companyId = company.company_id;
  if (input.device_public_key && input.otp_type !== OtpType.LOGIN) {
    throw fieldError('BAD_REQUEST', 'device_public_key', 'binds a device with otp_type 1 (login) only');
  }
  // The session's key (DPoP, contract 3.17), checked before the code is spent.
  const dpopJkt = input.otp_type === OtpType.LOGIN ? await loginSessionKey(call, input.device_public_key) : undefined;
  const { maxAttempts, verifyAddressWindowSeconds, failuresPerPhone, failureWindowSeconds } = app.config.otp;
  const { verifiesPerAddress } = companyLimits(company, app.config);
  const now = epochSeconds(app.clock);
  const key = codeKey(companyId, input);
  // The key first: without the server secret nothing is counted.
  const currentKey = await app.keys.current('otp');
  // Every try this attempt takes is marked with its id: a write the SDK retries counts nothing twice.
  // A request sent again with its Idempotency-Key is the same attempt: a code its first run used up
  // before failing (503) is still its own, so the right code is never answered "expired".
  const attemptId = attemptIdOf(idempotencyRef);
  // Top-up and KYC codes act on an account: the owner's token first, so no one else's attempt takes a try.
  const ownerId = OWNER_ONLY_OTP_TYPES.includes(input.otp_type) ? await phoneOwnerFor(app.table, companyId, input, principal) : undefined;

  // Count first, compare second: the source address, a try of the phone's wrong codes and a try of
  // the code are each taken by a conditional write, side by side, before the code is looked at. However
  // many guesses arrive at once, at most maxAttempts of them compare against one code, and at most
  // failuresPerPhone wrong codes count against a phone in a window.
  const [address, phoneTry, codeTry] = await Promise.allSettled([
    countAddress(app, origin.sourceIp, 'VERIFIES', verifiesPerAddress, verifyAddressWindowSeconds, now),
    takePhoneTry(app.table, companyId, input.phone_e164, {
      id: attemptId,
      now,
      windowSeconds: failureWindowSeconds,
      maxTries: failuresPerPhone,
    }),
    takeCodeTry(app.table, key, attemptId, now, maxAttempts),
  ]);
  const taken: TakenTries = {
    phone: phoneTry.status === 'fulfilled' && phoneTry.value.taken ? phoneTry.value : undefined,
    code: codeTry.status === 'fulfilled' && codeTry.value.taken ? { sendId: codeTry.value.record.send_id } : undefined,
  };
  // A try of the code, once taken, is spent: only a dependency failing (the attempt was never
  // judged) gives it back. The phone's try is given back whenever no code was compared.
  const giveBack = async (tries: TakenTries) => {
    // Best effort: a try that cannot be given back stays counted, which errs on the safe side.
    await Promise.allSettled([
      tries.phone && givePhoneTryBack(app.table, companyId, input.phone_e164, { id: attemptId, ...tries.phone }),
      tries.code && giveCodeTryBack(app.table, key, tries.code.sendId, attemptId),
    ]);
  };
  const failed = [address, phoneTry, codeTry].find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await giveBack(failed.reason instanceof AppError ? { phone: taken.phone } : taken);
    throw failed.reason;
  }
  if (!taken.phone) throw new AppError('OTP_ATTEMPTS_EXCEEDED', { detail: 'too many wrong codes for this phone; it opens again later' });
  if (codeTry.status !== 'fulfilled' || !codeTry.value.taken) {
    // Nothing compared: not a wrong code for the phone.
    await giveBack({ phone: taken.phone });
    // Absent, used and expired look alike: DynamoDB deletes expired items late, if at all.
    const seen = codeTry.status === 'fulfilled' && !codeTry.value.taken ? codeTry.value.seen : undefined;
    if (!seen || seen.consumed_by || seen.expires_at <= now) throw new CodeFailure('OTP_EXPIRED', 'no live code', seen?.user_id);
    throw new CodeFailure('OTP_ATTEMPTS_EXCEEDED', 'code is dead', seen.user_id);
  }

  const record = codeTry.value.record;
  // A wrong code keeps both tries counted.
  if (!(await codeMatches(app, currentKey, companyId, input, record))) throw new CodeFailure('OTP_INVALID', 'wrong code', record.user_id);
  // A right code is not a wrong one: the phone's try goes back as the code is used up.
  const [consumed] = await Promise.all([consumeCode(app.table, key, record.send_id, attemptId), giveBack({ phone: taken.phone })]);
  if (!consumed) throw new CodeFailure('OTP_EXPIRED', 'used or replaced meanwhile', record.user_id);

  if (input.otp_type !== OtpType.LOGIN) return proveThePhone(app, companyId, input, principal, ownerId);
  const userId = record.user_id;
  if (!userId) throw new Error('login code stored without its user');
  // A login to the new number of the user's pending phone change: the account moves to it first.
  if (record.pending_change_id) {
    const completion = {
      company,
      origin,
      userId,
      changeId: record.pending_change_id,
      phoneE164: input.phone_e164,
      requestRef: idempotencyRef,
    };
    await completePendingChange(app, texts, completion);
  }
  // The code reached the phone: the user is phone-verified from this login on. A locked login PIN
  // stays locked (contract 3.15: before round 6 an OTP login opened it, 5 fresh guesses per code).
  // Granted only while the number is still the user's: a phone change that commits first leaves this login without a session.
  const grant = { terms: { phoneVerified: true, phoneE164: input.phone_e164 } };
  const binding = deviceBindingOf(companyId, userId, input);
  const start = { began: 'otp', acr: 'sms', dpopJkt } as const;
  if (!binding) {
    return {
      message: 'Logged in successfully',
      ...(await grantSession(app, companyId, userId, input.user_type, start, grant)),
      user_id: userId,
    };
  }
  const { deviceKey, ...bound } = await createBoundSession(
    app,
    origin,
    { companyId, userId, userType: input.user_type },
    binding,
    start,
    grant,
  );
  const tokens = { token: bound.token, refresh_token: bound.refresh_token, expires_in: bound.expires_in };
  if (deviceKey === undefined) {
    const detail = 'every device slot holds a settled device: remove one from a strong session to bind this one';
    return { message: 'Logged in successfully', ...tokens, user_id: userId, device_refused: { code: 22, detail } };
  }
  // A new device bound by a code alone: the number is told (a push service hears device.added with settled 0).
  if ('newDevice' in bound && bound.newDevice) {
    await warnNumber(app, texts, { company, origin, userId, phoneE164: input.phone_e164, warning: { kind: 'new_device' } });
  }
  return { message: 'Logged in successfully', ...tokens, user_id: userId, device_key: deviceKey };
}
