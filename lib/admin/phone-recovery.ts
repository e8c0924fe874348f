import { taken } from '../account/phone-change-rules.js';
import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds, HOUR_SECONDS } from '../clock.js';
import { fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { allowedSmsDestination } from '../otp/sms-destinations.js';
import { accountBusy } from '../sessions/end-sessions.js';
import {
  getPendingPhoneChange,
  isLive,
  type PendingPhoneChange,
  pendingChangePut,
  phoneChangeIndexDelete,
  phoneChangeIndexPut,
  phoneClaimFree,
} from '../store/pending-phone-change-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import type { PhoneRecoverCall } from './phone-recover-input.js';
import type { PhoneRecoverResult } from './phone-recovery-result.js';
import { activeUserOf } from './recovery-target.js';
import { auditStaffAction, staffActionOnUser } from './staff-actions.js';
import { requireStaff } from './staff-gate.js';

// Assisted recovery (API contract 3.14), for a user who lost both the number and every bound device.
// Support starts proofs; it never sets a credential: one employee starts a pending phone change
// (3.11) with via `support`, which runs only once ANOTHER employee, an admin, approves it. From then
// on it is the user's pending change: the hold, the old number warned, any live session able to
// cancel it, and only a code sent to the new number completes it. At completion the account loses
// every bound device and every session (phone-change-completion.ts): not at approval, so that the
// owner whose support desk was fooled can still cancel from the app during the hold.

/** How long a started recovery waits for its approval before it is void. */
export const RECOVERY_APPROVAL_WITHIN_SECONDS = 24 * HOUR_SECONDS;

const MAX_ROUNDS = 5;

/**
 * Starts a recovery: in one transaction the change is stored awaiting its approval (replacing the
 * user's pending change, if any), the new number's index item is taken (one pending change per
 * number), its claim is checked free, and the action is recorded with notice 8. Nothing is sent yet.
 */
export async function startPhoneRecovery(app: App, call: PhoneRecoverCall & RequestKey): Promise<PhoneRecoverResult> {
  const { body, principal, company, origin, idempotencyRef } = call;
  const { companyId } = principal;
  const staff = await requireStaff(app, principal, ['support', 'admin']);
  const user = await activeUserOf(app, companyId, body.user_id);
  if (user.phone_e164 === body.phone_e164) throw fieldError('BAD_REQUEST', 'phone_number', 'is the account’s number already');
  // A number a code can reach: a mobile line in the company's countries (400 code 15 otherwise).
  await allowedSmsDestination(company, body.phone_e164);
  for (let round = 1; ; round++) {
    const current = await getPendingPhoneChange(app.table, companyId, user.user_id, true);
    const now = epochSeconds(app.clock);
    if (idempotencyRef && isLive(current, now) && current.requested_by_request === idempotencyRef) {
      return {
        message: 'Recovery started: another employee, an admin, must approve it',
        change_id: current.change_id,
        approve_by: current.expires_at,
      };
    }
    const approveBy = now + RECOVERY_APPROVAL_WITHIN_SECONDS;
    const change: PendingPhoneChange = {
      change_id: newId(),
      user_type: user.user_type,
      dial_code: body.dial_code,
      phone_number: body.phone_number,
      phone_e164: body.phone_e164,
      via: 'support',
      created_at: now,
      // Never due while it awaits approval: the window from effective_at to expires_at is empty.
      effective_at: approveBy,
      expires_at: approveBy,
      awaiting_approval: 1,
      started_by: staff.userId,
      requested_by_request: idempotencyRef,
    };
    const { record, writes: recorded } = await staffActionOnUser(app, staff.chain, {
      companyId,
      actorId: staff.userId,
      action: 'phone_recover',
      userId: user.user_id,
      reason: body.reason,
    });
    const index = { user_id: user.user_id, change_id: change.change_id, effective_at: approveBy, expires_at: approveBy };
    const writes: LabelledItem<string>[] = [
      { label: 'pending', item: pendingChangePut(app.table, companyId, user.user_id, change, current?.change_id) },
      { label: 'index', item: phoneChangeIndexPut(app.table, companyId, body.phone_e164, user.user_type, index, now) },
      { label: 'claim', item: phoneClaimFree(app.table, companyId, body.phone_e164, user.user_type) },
      ...recorded,
    ];
    if (current && current.phone_e164 !== body.phone_e164 && current.ended_reason === undefined) {
      writes.push({
        label: 'old_index',
        item: phoneChangeIndexDelete(app.table, companyId, current.phone_e164, current.user_type, user.user_id),
      });
    }
    try {
      await writeTransaction(app.table, writes);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.labels.includes('claim') || error.labels.includes('index')) throw taken();
      if (round >= MAX_ROUNDS) throw accountBusy();
      continue;
    }
    auditStaffAction(app, origin, record, 'started');
    return { message: 'Recovery started: another employee, an admin, must approve it', change_id: change.change_id, approve_by: approveBy };
  }
}
