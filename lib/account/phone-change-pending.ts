import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { OtpType } from '../codes/otp-types.js';
import { type AppError, fieldError } from '../errors.js';
import { SecurityEvent } from '../notifications/security-notifications.js';
import { audit, phoneRef } from '../observability/audit.js';
import { holdChange } from '../pending-changes/held-change.js';
import type { HeldChangeResult } from '../pending-changes/held-change-result.js';
import { checkPinAndAudit } from '../pins/check-pin-and-audit.js';
import type { RightPin } from '../pins/pin-attempts.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { phoneChangeIndexDelete, phoneChangeIndexPut, phoneClaimFree } from '../store/pending-change-store.js';
import { phoneProofConsume } from '../store/proof-store.js';
import type { LabelledItem } from '../store/transactions.js';
import type { UserRecord } from '../store/user-store.js';
import type { UserPhoneChangeCall } from './phone-change-input.js';
import { invalidProof, PENDING_CHANGE_COMPLETES_WITHIN_SECONDS, taken } from './phone-change-rules.js';

// A phone change asked for from an SMS-strength session (API contract 3.11, amended in round 5, and
// 3.15): whoever took over the old number by a SIM swap passes an OTP login, so a session begun by
// one takes the login PIN too, and the change waits PHONE_CHANGE_HOLD_HOURS, told to the old number
// and the user's list, before a login to the new number completes it (phone-change-completion.ts).
// Any session of the user may cancel it (lib/pending-changes).

/**
 * Makes the change pending: a session begun by OTP login has the login PIN checked counted (as a PIN
 * login checks it); then one transaction (holdChange) stores the change, uses up the proof of the new
 * number, takes the index item by the new number (one pending change per number), checks the new
 * number's claim is free and writes the notice (event 9). Then the old number is told.
 */
export async function requestPendingPhoneChange(
  app: App,
  call: UserPhoneChangeCall & RequestKey,
  texts: TextDispatch,
  { user, proofHash }: { user: UserRecord; proofHash: string },
): Promise<HeldChangeResult> {
  const { body: input, principal, origin, idempotencyRef } = call;
  const { companyId, userId } = principal;
  const refuse = async (error: AppError, outcome: string): Promise<never> => {
    audit(app, origin, 'phone_change_refused', {
      company_id: companyId,
      user_id: userId,
      phone_ref: await phoneRef(app.keys, input.phone_e164),
      outcome,
    });
    throw error;
  };
  const attemptId = attemptIdOf(idempotencyRef);
  const pin = { companyId, userId, pinType: 'login' as const };
  let rightPin: RightPin | undefined;
  if (principal.session?.began === 'otp') {
    if (!input.login_pin) {
      return refuse(
        fieldError('PHONE_NOT_VERIFIED', 'login_pin', 'is required: a session begun by OTP login changes the number with the login PIN'),
        'no_pin',
      );
    }
    const check = { ...pin, pin: input.login_pin, storedHash: user.login_pin_hash, attemptId };
    rightPin = await checkPinAndAudit(app, origin, check, 'phone_change');
  }
  const userType = user.user_type;
  const now = epochSeconds(app.clock);
  const result = await holdChange(app, call, texts, {
    kind: 'phone',
    details: { user_type: userType, dial_code: input.dial_code, phone_number: input.phone_number, phone_e164: input.phone_e164 },
    warnPhoneE164: user.phone_e164,
    completesWithinSeconds: PENDING_CHANGE_COMPLETES_WITHIN_SECONDS,
    notice: SecurityEvent.PHONE_CHANGE_PENDING,
    message: 'Phone number change pending',
    items: (change, replaced) => {
      const index = { user_id: userId, change_id: change.change_id, effective_at: change.effective_at, expires_at: change.expires_at! };
      const items: LabelledItem<string>[] = [
        { label: 'index', item: phoneChangeIndexPut(app.table, companyId, input.phone_e164, userType, index, now) },
        {
          label: 'proof',
          item: phoneProofConsume(app.table, companyId, proofHash, {
            phoneE164: input.phone_e164,
            userType,
            otpType: OtpType.PHONE_VERIFICATION,
            now,
            userId,
          }),
        },
        { label: 'claim', item: phoneClaimFree(app.table, companyId, input.phone_e164, userType) },
      ];
      items.push(...(rightPin?.writes ?? []).map((write) => ({ label: 'pin', ...write })));
      // The change it replaces waited on another number: that number's index item goes with it.
      if (replaced?.kind === 'phone' && replaced.phone_e164 !== input.phone_e164 && replaced.ended_reason === undefined) {
        items.push({
          label: 'old_index',
          item: phoneChangeIndexDelete(app.table, companyId, replaced.phone_e164, replaced.user_type, userId),
        });
      }
      return items;
    },
    refusal: (labels) =>
      labels.includes('proof') ? invalidProof() : labels.includes('claim') || labels.includes('index') ? taken() : undefined,
    // A right PIN never counts toward a lock: a change refused after it gives its try back (best effort).
    onRefused: async () => {
      await rightPin?.giveBack();
    },
  });
  audit(app, origin, 'phone_change_pending', {
    company_id: companyId,
    user_id: userId,
    phone_ref: await phoneRef(app.keys, input.phone_e164),
    outcome: 'pending',
    change_id: result.change_id,
    effective_at: result.effective_at,
  });
  return result;
}
