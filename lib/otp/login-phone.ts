import { randomBytes } from 'node:crypto';
import { dueChangeFor } from '../account/phone-change-completion.js';
import type { App } from '../app-context.js';
import type { RequestTime } from '../call.js';
import { epochSeconds } from '../clock.js';
import { codeKey, currentOtpCodeHash, newOtpCode } from '../codes/otp-codes.js';
import { allowedSmsDestination, numberRange } from '../companies/sms-destinations.js';
import { AppError } from '../errors.js';
import { audit, phoneRef } from '../observability/audit.js';
import { otpSmsText } from '../sms/otp-sms-text.js';
import type { CodeText, TextDispatch } from '../sms/text-dispatch.js';
import { deleteOtp, putOtp } from '../store/otp-store.js';
import { getPhoneChangeIndex } from '../store/pending-change-store.js';
import { OtpType } from './code-target.js';
import type { LoginPhoneCall } from './login-phone-input.js';
import type { LoginPhoneResult } from './login-phone-result.js';
import { phoneOwnerFor } from './phone-owner.js';
import { checkSender, reserveSend } from './send-limits.js';

/** What a withheld code's wait leaves of the request's time, to answer in. */
const ANSWER_MARGIN_MS = 100;

/**
 * Sends a one-time code by SMS (API contract 3.2). The destination is checked first (the
 * company's countries, mobile lines only) and costs nothing when refused. Every other request
 * counts against the send limits, registered phone or not. A login code for a (phone, user type)
 * with no active user gets the same answer and the same stored record, but one that no code
 * matches, and no SMS, answered after about the time an SMS takes: neither the answer, nor its
 * time, nor a later verify reveals an account.
 */
export async function loginPhone(app: App, call: LoginPhoneCall & RequestTime, texts: TextDispatch): Promise<LoginPhoneResult> {
  const ref = await phoneRef(app.keys, call.body.phone_e164);
  try {
    return await sendCode(app, call, texts, ref);
  } catch (error) {
    // A refusal that is a security event is recorded with the phone it concerns.
    if (error instanceof AppError && error.event) error.event.phoneRef = ref;
    throw error;
  }
}

async function sendCode(
  app: App,
  { body: input, company, principal, origin, timeLeftMs }: LoginPhoneCall & RequestTime,
  texts: TextDispatch,
  ref: string,
): Promise<LoginPhoneResult> {
  const companyId = company.company_id;
  const { ttlSeconds, prefixDigits } = app.config.otp;
  const answer = { message: 'OTP sent to your mobile number', expires_in: ttlSeconds };
  const destination = await allowedSmsDestination(company, input.phone_e164);

  // The code's HMAC first: without the server secret nothing is counted or sent.
  const code = newOtpCode();
  const { codeHash, keyVersion } = await currentOtpCodeHash(app.keys, companyId, input, code);

  // Who holds the phone, a pending phone change to it, the source address's count and the phone's
  // lockout: side by side (the change's index read on every login, so it adds no wait).
  const login = input.otp_type === OtpType.LOGIN;
  const [ownerId, changeIndex] = await Promise.all([
    input.otp_type === OtpType.PHONE_VERIFICATION ? undefined : phoneOwnerFor(app.table, companyId, input, principal),
    login ? getPhoneChangeIndex(app.table, companyId, input.phone_e164, input.user_type) : undefined,
    checkSender(app, company, input.phone_e164, origin.sourceIp),
  ]);
  // A user's pending phone change to the number, once due, is completed by this login: held by no one,
  // or by a user who registered it without proving it (the completion reclaims it, contract 6).
  const due = changeIndex ? await dueChangeFor(app, companyId, input, ownerId, changeIndex) : undefined;
  const userId = due?.userId ?? ownerId;
  const reservation = await reserveSend(app, company, input.phone_e164, numberRange(destination, prefixDigits));
  const noAccount = input.otp_type === OtpType.LOGIN && !userId;
  const event = { company_id: companyId, user_id: userId, phone_ref: ref, otp_type: input.otp_type, country: destination.country };

  // Stored before its text leaves: a queued text is sent only once its code can be verified.
  const now = epochSeconds(app.clock);
  const expiresAt = now + ttlSeconds;
  const sendId = randomBytes(12).toString('base64url');
  const key = codeKey(companyId, input);
  try {
    await putOtp(app.table, key, {
      // With no account behind it, a hash of nothing a code can be: wrong tries count as for any code.
      code_hash: noAccount ? randomBytes(32).toString('base64url') : codeHash,
      key_version: keyVersion,
      send_id: sendId,
      user_id: userId,
      pending_change_id: due?.changeId,
      created_at: now,
      expires_at: expiresAt,
    });
  } catch (error) {
    // Nothing was sent: the send is given back (a code stored with its answer lost is never sent).
    await reservation.release();
    throw error;
  }
  const text: CodeText = {
    companyId,
    phoneNumber: input.phone_e164,
    text: otpSmsText(company, { code, ttlSeconds, acceptLanguage: origin.acceptLanguage }, app),
    // A number of no one country (a global service code) paces with the '*' pool: ZZ is ISO's unknown.
    country: destination.country ?? 'ZZ',
    expiresAt,
  };
  const queued = app.config.sms.delivery === 'queue';
  if (noAccount) {
    audit(app, origin, 'code_suppressed', { ...event, outcome: 'no_active_user' });
    // The wait ends short of the deadline, so the answer is this one and not a 503.
    await texts.withhold(text, timeLeftMs() - ANSWER_MARGIN_MS);
    return answer;
  }
  try {
    await texts.send(text);
  } catch (error) {
    audit(app, origin, 'code_sent', { ...event, outcome: 'failed' });
    // A text that did not leave leaves no code and no count behind.
    await Promise.all([reservation.release(), deleteOtp(app.table, key, sendId)]);
    throw error;
  }
  audit(app, origin, 'code_sent', { ...event, outcome: queued ? 'queued' : 'sent' });
  return answer;
}
