import type { App } from '../app-context.js';
import type { Principal, RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { OtpType } from '../codes/otp-types.js';
import { AppError, fieldError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { holdChange } from '../pending-changes/held-change.js';
import { waitingOfKind } from '../pending-changes/pending-change-list.js';
import { hashPin, hashToken } from '../secrets/hashing.js';
import { isStrong, requireFreshStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { queryPendingChanges } from '../store/pending-change-store.js';
import { PIN_TO_SET } from '../store/pin-store.js';
import { phoneProofConsume } from '../store/proof-store.js';
import { ConditionsFailed, type LabelledItem } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import type { ChangePinResult } from './change-pin-result.js';
import { requirePinsDiffer } from './distinct-pins.js';
import { PIN_CHANGE_KIND } from './held-pins.js';
import type { ResetPinCall } from './reset-pin-input.js';
import { setPin } from './set-pin.js';

const NO_PROOF = 'is required: a proof of this user’s phone (otp_type 2, verified with this user’s token), or a session begun by OTP login';

/** Whether the presenting session itself proves the phone: it began by OTP login a short while ago. */
function recentOtpLogin(app: App, principal: Principal): boolean {
  const session = principal.session;
  return session?.began === 'otp' && epochSeconds(app.clock) - session.beganAt < app.config.pinResetOtpSessionSeconds;
}

const invalidProof = () =>
  fieldError(
    'PHONE_NOT_VERIFIED',
    'phone_verification_token',
    'is not a valid proof of this user’s phone: unknown, expired, used, or issued to another',
  );

/**
 * Resets a forgotten or locked PIN (API contract 3.7 and 3.15). The phone is proven by a type-2 proof
 * this user verified with their own token (used up in the reset's transaction) or by a session begun
 * by OTP login under config.pinResetOtpSessionSeconds ago. Whoever holds the SIM proves the phone
 * too, so the reset is held unless a strong session proven under STEP_UP_MAX_AGE_SECONDS ago asks
 * with a proof: then it is set at once (the new PIN, its tallies cleared and every other session
 * ended, in one transaction), and any reset of it that waited is cancelled. A fresh strong session
 * without a phone proof (the SIM is gone) may still reset, held (second reading). The new PIN must
 * differ from the other PIN.
 */
export async function resetPin(app: App, call: ResetPinCall & RequestKey, texts: TextDispatch): Promise<ChangePinResult> {
  const { body: input, principal, origin } = call;
  const { companyId, userId } = principal;
  const strong = isStrong(principal);
  if (strong) requireFreshStrong(app, principal, 'a PIN reset');
  // No proof at all: refused before anything is read.
  if (!input.phone_verification_token && !strong && !recentOtpLogin(app, principal)) {
    throw fieldError('PHONE_NOT_VERIFIED', 'phone_verification_token', NO_PROOF);
  }
  const proofItems: LabelledItem<string>[] = [];
  const [user, changes] = await Promise.all([
    getUser(app.table, companyId, userId, true),
    queryPendingChanges(app.table, companyId, userId),
  ]);
  if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  if (input.phone_verification_token) {
    const expected = {
      phoneE164: user.phone_e164,
      userType: user.user_type,
      otpType: OtpType.PHONE_VERIFICATION,
      now: epochSeconds(app.clock),
      userId,
    };
    proofItems.push({ label: 'proof', item: phoneProofConsume(app.table, companyId, hashToken(input.phone_verification_token), expected) });
  }
  const proven = proofItems.length > 0 || recentOtpLogin(app, principal);
  const pinType = input.pin_type;
  await requirePinsDiffer(app, user, pinType, input.new_pin);
  const hash = await hashPin(app.keys, input.new_pin, app.hashCost.pin);
  const event = { company_id: companyId, user_id: userId, pin_type: pinType };

  // A PIN staff chose at registration is the user's to set at once on their own proof of the phone (contract 3.15).
  const settingUp = proven && user[PIN_TO_SET[pinType]] === 1;
  if (!(strong && proven) && !settingUp) {
    const held = await holdChange(app, call, texts, {
      kind: PIN_CHANGE_KIND[pinType],
      details: { pin_hash: hash, reason: 'reset' },
      warnPhoneE164: user.phone_e164,
      message: 'PIN reset pending',
      items: () => proofItems,
      known: changes,
      refusal: (labels) => (labels.includes('proof') ? invalidProof() : undefined),
    });
    audit(app, origin, 'pin_reset', { ...event, outcome: 'held', change_id: held.change_id, effective_at: held.effective_at });
    return held;
  }
  // A reset that waited is superseded by this one.
  const waiting = waitingOfKind(changes, PIN_CHANGE_KIND[pinType], epochSeconds(app.clock));
  const superseded = waiting
    ? pendingChangeEndWrites(app, companyId, userId, waiting, { reason: 'cancelled', requestRef: call.idempotencyRef, quiet: true })
    : [];
  let revoked: number;
  try {
    revoked = await setPin(
      app,
      { companyId, userId, keptSessionId: principal.sessionId },
      { pinType, hash, event: 'PIN_RESET', items: [...proofItems, ...superseded] },
    );
  } catch (error) {
    if (error instanceof ConditionsFailed && error.labels.includes('proof')) throw invalidProof();
    throw error;
  }
  const proof = input.phone_verification_token ? 'phone_proof' : 'otp_session';
  audit(app, origin, 'pin_reset', { ...event, outcome: 'reset', proof, revoked });
  audit(app, origin, 'sessions_revoked', { company_id: companyId, user_id: userId, outcome: 'pin_reset', revoked });
  return { message: 'PIN reset', revoked };
}
