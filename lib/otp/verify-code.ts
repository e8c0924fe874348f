import { nowSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { config } from '../config.js';
import { AppError } from '../errors.js';
import { consumeOtp, countWrongTry } from '../store/otp-store.js';
import { createAccessToken, TOKEN_TYPE, type Principal } from '../tokens/access-tokens.js';
import { codeKey, otpCodeHash } from './otp-codes.js';
import { OtpType, OWNER_ONLY_OTP_TYPES, type VerifyCodeInput } from './otp-input.js';
import type { VerifyCodeResult } from './otp-results.js';
import { phoneOwnerFor } from './phone-owner.js';

/**
 * Checks a code (API contract 3.3). A right code is consumed in the same atomic step that
 * checks it; a wrong one counts a try against that very send, so a code dies after
 * config.otp.maxAttempts wrong tries however many arrive at once.
 */
export async function verifyCode(company: Company, input: VerifyCodeInput, principal: Principal | undefined): Promise<VerifyCodeResult> {
  const companyId = company.company_id;
  if (OWNER_ONLY_OTP_TYPES.includes(input.otp_type)) await phoneOwnerFor(companyId, input, principal);

  const key = codeKey(companyId, input);
  const codeHash = otpCodeHash(companyId, input, input.otp);
  const now = nowSeconds();
  const result = await consumeOtp(key, codeHash, now, config.otp.maxAttempts);

  if (result.consumed) {
    const userId = result.record.user_id;
    if (input.otp_type !== OtpType.LOGIN) return { message: 'OTP verified', verified: 1 };
    if (!userId) throw new Error('login code stored without its user');
    const token = await createAccessToken(companyId, userId, input.user_type);
    return { message: 'Logged in successfully', token: { type: TOKEN_TYPE, token }, user_id: userId };
  }

  // Absent and expired look alike: DynamoDB deletes expired items late, if at all.
  const seen = result.seen;
  if (!seen || seen.expires_at <= now) throw new AppError('OTP_EXPIRED', { detail: 'no live code' });
  if (seen.attempts >= config.otp.maxAttempts) throw new AppError('OTP_ATTEMPTS_EXCEEDED', { detail: 'code is dead' });
  await countWrongTry(key, seen.send_id, config.otp.maxAttempts);
  throw new AppError('OTP_INVALID', { detail: 'wrong code' });
}
