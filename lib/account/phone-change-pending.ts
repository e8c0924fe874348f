import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { type AppError, fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, phoneRef } from '../observability/audit.js';
import { OtpType } from '../otp/otp-types.js';
import { checkPinAndAudit } from '../pins/check-pin-and-audit.js';
import { accountBusy } from '../sessions/end-sessions.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import {
  getPendingPhoneChange,
  isLive,
  type PendingPhoneChange,
  pendingChangePut,
  phoneChangeIndexDelete,
  phoneChangeIndexPut,
  phoneClaimFree,
} from '../store/pending-phone-change-store.js';
import { givePinTryBack } from '../store/pin-store.js';
import { phoneProofConsume } from '../store/proof-store.js';
import { ConditionsFailed, type LabelledItem, type TransactItem, writeTransaction } from '../store/transactions.js';
import type { UserRecord } from '../store/user-store.js';
import type { UserPhoneChangeCall } from './phone-change-input.js';
import { warnOldNumber } from './phone-change-notice.js';
import type { UserPhoneChangePendingResult } from './phone-change-result.js';
import { invalidProof, PENDING_CHANGE_COMPLETES_WITHIN_SECONDS, taken } from './phone-change-rules.js';

// A phone change asked for from a session begun by OTP login (API contract 3.11, amended in round 5):
// whoever took over the old number by a SIM swap passes that login, so it takes the login PIN too,
// and it waits PHONE_CHANGE_HOLD_HOURS, told to the old number and the user's list, before a login
// to the new number completes it (phone-change-completion.ts). Any live session may cancel it.

type Label = 'pending' | 'index' | 'old_index' | 'proof' | 'claim' | 'notice' | 'pin';

const MAX_ROUNDS = 5;

const answerOf = (change: Pick<PendingPhoneChange, 'change_id' | 'effective_at'>): UserPhoneChangePendingResult => ({
  message: 'Phone number change pending',
  pending: 1,
  change_id: change.change_id,
  effective_at: change.effective_at,
});

/**
 * Makes the change pending: the login PIN is checked counted (as a PIN login checks it), then one
 * transaction uses up the proof of the new number, stores the change in the user's partition
 * (replacing one read there), takes the index item by the new number (one pending change per
 * number), checks the new number's claim is free and writes the notice (event 9). Then the old
 * number is told. A retry of the same request whose answer was lost finds its own change and
 * answers it again.
 */
export async function requestPendingPhoneChange(
  app: App,
  call: UserPhoneChangeCall & RequestKey,
  texts: TextDispatch,
  { user, proofHash }: { user: UserRecord; proofHash: string },
): Promise<UserPhoneChangePendingResult> {
  const { body: input, principal, company, origin, idempotencyRef } = call;
  const { companyId, userId } = principal;
  const event = { company_id: companyId, user_id: userId };
  const refuse = async (error: AppError, outcome: string): Promise<never> => {
    audit(app, origin, 'phone_change_refused', { ...event, phone_ref: await phoneRef(app.keys, input.phone_e164), outcome });
    throw error;
  };
  const attemptId = attemptIdOf(idempotencyRef);
  const pin = { companyId, userId, pinType: 'login' as const };
  // A right PIN never counts toward a lock: a change refused after it gives its try back (best effort).
  const refuseAfterPin = async (error: AppError, outcome: string): Promise<never> => {
    await givePinTryBack(app.table, pin, attemptId).catch(() => undefined);
    return refuse(error, outcome);
  };

  if (!input.login_pin) {
    return refuse(
      fieldError('PHONE_NOT_VERIFIED', 'login_pin', 'is required: a session begun by OTP login changes the number with the login PIN'),
      'no_pin',
    );
  }
  let clearTries: TransactItem | undefined;
  for (let round = 1; ; round++) {
    const current = await getPendingPhoneChange(app.table, companyId, userId, true);
    const now = epochSeconds(app.clock);
    if (idempotencyRef && isLive(current, now) && current.requested_by_request === idempotencyRef) {
      // This very request made it and its answer was lost: the same answer (its PIN, right then, is
      // not counted again), the old number told (perhaps twice).
      await warnOldNumber(app, texts, { company, origin, userId, oldPhoneE164: user.phone_e164, pending: true });
      return answerOf(current);
    }
    clearTries ??= (
      await checkPinAndAudit(app, origin, { ...pin, pin: input.login_pin, storedHash: user.login_pin_hash, attemptId }, 'phone_change')
    ).clearTries;
    const effectiveAt = now + app.config.phoneChangeHoldHours * 3600;
    const change: PendingPhoneChange = {
      change_id: newId(),
      user_type: user.user_type,
      dial_code: input.dial_code,
      phone_number: input.phone_number,
      phone_e164: input.phone_e164,
      via: 'user',
      created_at: now,
      effective_at: effectiveAt,
      expires_at: effectiveAt + PENDING_CHANGE_COMPLETES_WITHIN_SECONDS,
      requested_by_request: idempotencyRef,
    };
    const userType = user.user_type;
    const index = { user_id: userId, change_id: change.change_id, effective_at: effectiveAt, expires_at: change.expires_at };
    const writes: LabelledItem<Label>[] = [
      { label: 'pending', item: pendingChangePut(app.table, companyId, userId, change, current?.change_id) },
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
      { label: 'pin', item: clearTries },
      ...securityNotificationWrites(app.table, companyId, userId, {
        event: SecurityEvent.PHONE_CHANGE_PENDING,
        nowMs: app.clock.now(),
      }).map((item) => ({ label: 'notice' as const, item })),
    ];
    // The change it replaces waited on another number: that number's index item goes with it.
    if (current && current.phone_e164 !== input.phone_e164 && current.ended_reason === undefined) {
      writes.push({
        label: 'old_index',
        item: phoneChangeIndexDelete(app.table, companyId, current.phone_e164, current.user_type, userId),
      });
    }
    try {
      await writeTransaction(app.table, writes);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = new Set(error.labels as Label[]);
      if (failed.has('proof')) return refuseAfterPin(invalidProof(), 'proof_invalid');
      if (failed.has('claim') || failed.has('index')) return refuseAfterPin(taken(), 'phone_taken');
      // Another request of the user's replaced the change meanwhile: read again.
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    audit(app, origin, 'phone_change_pending', {
      ...event,
      phone_ref: await phoneRef(app.keys, input.phone_e164),
      outcome: 'pending',
      change_id: change.change_id,
      effective_at: effectiveAt,
    });
    await warnOldNumber(app, texts, { company, origin, userId, oldPhoneE164: user.phone_e164, pending: true });
    return answerOf(change);
  }
}
