import { randomBytes } from 'node:crypto';
import type { App } from '../app.js';
import { epochSeconds } from '../clock.js';
import type { Company } from '../companies/companies.js';
import type { Principal } from '../sessions/access-tokens.js';
import type { SendText } from '../sms/sms-sender.js';
import { putOtp } from '../store/otp-store.js';
import { codeKey, currentOtpCodeHash, newOtpCode } from './otp-codes.js';
import { type LoginPhoneInput, OtpType } from './otp-input.js';
import type { LoginPhoneResult } from './otp-results.js';
import { phoneOwnerFor } from './phone-owner.js';
import { reserveSend } from './send-limits.js';

function smsText(company: Company, code: string, ttlSeconds: number): string {
  const minutes = Math.round(ttlSeconds / 60);
  return `${code} is your ${company.name} verification code. It expires in ${minutes} minutes. Never share it.`;
}

/**
 * Sends a one-time code by SMS (API contract 3.2). Every request counts against the send
 * limits, registered phone or not; a login code for an unregistered (phone, user type) gets
 * the same answer and sends nothing, so the answer reveals no account.
 */
export async function loginPhone(
  app: App,
  sms: SendText,
  company: Company,
  input: LoginPhoneInput,
  principal: Principal | undefined,
): Promise<LoginPhoneResult> {
  const companyId = company.company_id;
  const { ttlSeconds } = app.config.otp;
  const answer = { message: 'OTP sent to your mobile number', expires_in: ttlSeconds };
  const ownerId = input.otp_type === OtpType.PHONE_VERIFICATION ? undefined : await phoneOwnerFor(app.table, companyId, input, principal);

  // The code's HMAC first: without the server secret nothing is counted or sent.
  const code = newOtpCode();
  const { codeHash, keyVersion } = await currentOtpCodeHash(app.keys, companyId, input, code);

  const reservation = await reserveSend(app, companyId, input.phone_e164);
  if (input.otp_type === OtpType.LOGIN && !ownerId) return answer;

  try {
    await sms({ phoneNumber: input.phone_e164, text: smsText(company, code, ttlSeconds) });
  } catch (error) {
    await reservation.release();
    throw error;
  }
  // Stored only once the SMS is out: a failed send never leaves a usable code behind.
  const now = epochSeconds(app.clock);
  await putOtp(app.table, codeKey(companyId, input), {
    code_hash: codeHash,
    key_version: keyVersion,
    send_id: randomBytes(12).toString('base64url'),
    attempts: 0,
    user_id: ownerId,
    created_at: now,
    expires_at: now + ttlSeconds,
  });
  return answer;
}
