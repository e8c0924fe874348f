import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError, fieldError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { OtpType } from '../otp/otp-types.js';
import { hashToken } from '../secrets/hashing.js';
import { phoneProofConsume } from '../store/proof-store.js';
import { ConditionsFailed, type LabelledItem } from '../store/transactions.js';
import { getUser } from '../store/user-store.js';
import type { ChangePinResult } from './change-pin-result.js';
import type { ResetPinCall } from './reset-pin-input.js';
import { setPin } from './set-pin.js';

const NO_PROOF = 'is required: a proof of this user’s phone (otp_type 2, verified with this user’s token), or a session begun by OTP login';

/** Whether the presenting session itself proves the phone: it began by OTP login a short while ago. */
function recentOtpLogin(app: App, principal: Principal): boolean {
  const session = principal.session;
  return session?.began === 'otp' && epochSeconds(app.clock) - session.beganAt < app.config.pinResetOtpSessionSeconds;
}

/**
 * Resets a forgotten or locked PIN (API contract 3.7) on proof of the phone: a type-2 proof this
 * user verified with their own token (used up in the reset's transaction), or a session that began
 * by OTP login under config.pinResetOtpSessionSeconds ago. The new PIN is set, its count and lock
 * cleared, and every other session of the user ends, in one transaction.
 */
export async function resetPin(app: App, { body: input, principal, origin }: ResetPinCall): Promise<ChangePinResult> {
  const { companyId, userId } = principal;
  const items: LabelledItem<string>[] = [];
  if (input.phone_verification_token) {
    const user = await getUser(app.table, companyId, userId, true);
    if (!user) throw new AppError('UNAUTHORIZED', { detail: 'no such user' });
    const expected = {
      phoneE164: user.phone_e164,
      userType: user.user_type,
      otpType: OtpType.PHONE_VERIFICATION,
      now: epochSeconds(app.clock),
      userId,
    };
    items.push({ label: 'proof', item: phoneProofConsume(app.table, companyId, hashToken(input.phone_verification_token), expected) });
  } else if (!recentOtpLogin(app, principal)) {
    throw fieldError('PHONE_NOT_VERIFIED', 'phone_verification_token', NO_PROOF);
  }
  let revoked: number;
  try {
    revoked = await setPin(app, principal, { pinType: input.pin_type, newPin: input.new_pin, event: 'PIN_RESET', items });
  } catch (error) {
    if (error instanceof ConditionsFailed && error.labels.includes('proof')) {
      throw fieldError(
        'PHONE_NOT_VERIFIED',
        'phone_verification_token',
        'is not a valid proof of this user’s phone: unknown, expired, used, or issued to another',
      );
    }
    throw error;
  }
  const proof = input.phone_verification_token ? 'phone_proof' : 'otp_session';
  audit(app, origin, 'pin_reset', { company_id: companyId, user_id: userId, outcome: 'reset', pin_type: input.pin_type, proof, revoked });
  audit(app, origin, 'sessions_revoked', { company_id: companyId, user_id: userId, outcome: 'pin_reset', revoked });
  return { message: 'PIN reset', revoked };
}
