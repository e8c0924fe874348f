import { taken } from '../account/phone-change-rules.js';
import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { allowedSmsDestination } from '../companies/sms-destinations.js';
import { AppError, fieldError } from '../errors.js';
import { newId } from '../ids.js';
import { accountBusy } from '../sessions/end-sessions.js';
import { auditStaffAction, staffActionOnUser, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff, type Staff } from '../staff/staff-gate.js';
import { countLookup } from '../staff/staff-lookups.js';
import {
  getPendingPhoneChange,
  isLive,
  type PendingPhoneChange,
  pendingChangePut,
  phoneChangeIndexDelete,
  phoneChangeIndexPut,
  phoneClaimFree,
} from '../store/pending-change-store.js';
import { awaitingRecoveryDelete, awaitingRecoveryPut } from '../store/staff-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import type { UserRecord } from '../store/user-store.js';
import { actionTarget } from './action-target.js';
import { APPROVAL_WITHIN_SECONDS } from './approver-rules.js';
import type { PhoneRecoverCall } from './phone-recover-input.js';
import type { PhoneRecoverResult } from './phone-recovery-result.js';
import { requireActive } from './recovery-target.js';

// Assisted recovery (API contract 3.14), for a user who lost both the number and every bound device.
// Support starts proofs; it never sets a credential: one employee starts a pending phone change
// (3.11) with via `support`, which runs only once ANOTHER employee, an admin, approves it. From then
// on it is the user's pending change: the hold, the old number warned, any live session able to
// cancel it, and only a code sent to the new number completes it. At completion the account loses
// every bound device and every session (phone-change-completion.ts): not at approval, so that the
// owner whose support desk was fooled can still cancel from the app during the hold. A start is
// also a lookup (a number someone holds answers 409 code 7): counted against ADMIN_LOOKUPS_PER_HOUR
// like a search, and recorded whether it starts or is refused, so probing numbers is neither free
// nor unseen (contract 3.14, amended in round 6). It names whom it acts on as every action does
// (action-target.ts: not the starter's own account, an employee only by an admin).

const MAX_ROUNDS = 5;
/** Days a recovery's place in the approvals list stays stored after its approval window (its TTL). */
const LISTED_KEPT_SECONDS = 30 * 24 * 3600;

/**
 * Records a start refused after its lookup was counted (the user unknown, not active, the number
 * held, not a mobile line in the company's countries, the account's own): no notice, nothing changed
 * for the user; with the refusal and the number's last 4 digits, so an auditor sees what was probed.
 */
async function recordRefusal(app: App, staff: Staff, call: PhoneRecoverCall, target: UserRecord | undefined, error: AppError) {
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId: call.principal.companyId,
    actorId: staff.userId,
    action: 'phone_recover',
    userId: target?.user_id,
    reason: call.body.reason,
    details: { outcome: 'refused', refusal: error.errorName, phone_last4: call.body.phone_number.slice(-4) },
  });
  await writeTransaction(app.table, writes);
  auditStaffAction(app, call.origin, record, `refused_${error.errorName.toLowerCase()}`);
}

/** POST /wallet/v3/admin/users/phone/recover: counted as a lookup, then started or refused, and recorded either way. */
export async function startPhoneRecovery(app: App, call: PhoneRecoverCall & RequestKey): Promise<PhoneRecoverResult> {
  const staff = await requireStaff(app, call.principal, ['support', 'admin']);
  await countLookup(app, staff, call.principal.companyId);
  const named: { user?: UserRecord } = {};
  try {
    return await startRecovery(app, call, staff, named);
  } catch (error) {
    if (error instanceof AppError && error.status < 500) await recordRefusal(app, staff, call, named.user, error);
    throw error;
  }
}

/**
 * Starts a recovery: in one transaction the change is stored awaiting its approval (replacing the
 * user's pending change, if any), the new number's index item is taken (one pending change per
 * number), its claim is checked free, and the action is recorded with notice 8. Nothing is sent yet.
 */
async function startRecovery(
  app: App,
  call: PhoneRecoverCall & RequestKey,
  staff: Staff,
  named: { user?: UserRecord },
): Promise<PhoneRecoverResult> {
  const { body, principal, company, origin, idempotencyRef } = call;
  const { companyId } = principal;
  const user = await actionTarget(app, staff, companyId, body.user_id);
  named.user = user;
  requireActive(user);
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
    const approveBy = now + APPROVAL_WITHIN_SECONDS;
    const change: PendingPhoneChange = {
      change_id: newId(),
      kind: 'phone',
      // Support's own request: no SMS-strength session may replace it (3.15, second reading).
      acr: 'strong',
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
      { label: 'pending', item: pendingChangePut(app.table, companyId, user.user_id, change, current) },
      { label: 'index', item: phoneChangeIndexPut(app.table, companyId, body.phone_e164, user.user_type, index, now) },
      { label: 'claim', item: phoneClaimFree(app.table, companyId, body.phone_e164, user.user_type) },
      ...recorded,
      {
        label: 'listed',
        item: awaitingRecoveryPut(app.table, companyId, {
          change_id: change.change_id,
          user_id: user.user_id,
          started_by: staff.userId,
          started_at: now,
          approve_by: approveBy,
          ttl: approveBy + LISTED_KEPT_SECONDS,
        }),
      },
    ];
    // A recovery replaced while it awaited leaves the approvals list.
    if (current?.awaiting_approval) writes.push({ label: 'listed', item: awaitingRecoveryDelete(app.table, companyId, current.change_id) });
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
