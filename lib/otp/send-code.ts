import { randomBytes } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { config } from '../config.js';
import { sendText } from '../sms/sms-sender.js';
import { putOtp } from '../store/otp-store.js';
import type { Principal } from '../tokens/access-tokens.js';
import { codeKey, newOtpCode, otpCodeHash } from './otp-codes.js';
import { OtpType, type SendCodeInput } from './otp-input.js';
import type { SendCodeResult } from './otp-results.js';
import { phoneOwnerFor } from './phone-owner.js';
import { reserveSend } from './send-limits.js';

function smsText(company: Company, code: string): string {
  const minutes = Math.round(config.otp.ttlSeconds / 60);
  return `${code} is your ${company.name} verification code. It expires in ${minutes} minutes. Never share it.`;
}

/**
 * Sends a one-time code by SMS (API contract 3.2). Every request counts against the send
 * limits, registered phone or not; a login code for an unregistered (phone, user type) gets
 * the same answer and sends nothing, so the answer reveals no account.
 */
export async function sendCode(company: Company, input: SendCodeInput, principal: Principal | undefined): Promise<SendCodeResult> {
  const companyId = company.company_id;
  const answer = { message: 'OTP sent to your mobile number', expires_in: config.otp.ttlSeconds };
  const ownerId = input.otp_type === OtpType.PHONE_VERIFICATION ? undefined : await phoneOwnerFor(companyId, input, principal);

  const reservation = await reserveSend(companyId, input.phone_e164);
  if (input.otp_type === OtpType.LOGIN && !ownerId) return answer;

  const code = newOtpCode();
  try {
    await sendText({ phoneNumber: input.phone_e164, text: smsText(company, code) });
  } catch (error) {
    await reservation.release();
    throw error;
  }
  // Stored only once the SMS is out: a failed send never leaves a usable code behind.
  const now = nowSeconds();
  await putOtp(codeKey(companyId, input), {
    code_hash: otpCodeHash(companyId, input, code),
    send_id: randomBytes(12).toString('base64url'),
    attempts: 0,
    user_id: ownerId,
    created_at: now,
    expires_at: now + config.otp.ttlSeconds,
  });
  return answer;
}
