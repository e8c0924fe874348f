import type { App } from '../app-context.js';
import { IDEMPOTENCY_WINDOW_SECONDS, type RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { codeKey } from '../codes/otp-codes.js';
import { OtpType } from '../codes/otp-types.js';
import { AppError, fieldError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, phoneRef } from '../observability/audit.js';
import { auditReclaim, endReclaimedLater } from '../registration/phone-reclaim.js';
import { hashToken } from '../secrets/hashing.js';
import { accountBusy, MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import { requireFreshLogin } from '../sessions/fresh-login.js';
import { isStrong, requireFreshStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { sessionKey } from '../store/keys.js';
import { codeDelete, userPhoneChange as userPhoneChangeWrite } from '../store/phone-change-store.js';
import { phoneProofConsume } from '../store/proof-store.js';
import type { ReclaimWrite } from '../store/registration-store.js';
import { endSessions, querySessions, sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, phoneClaimRelease, type UserRecord } from '../store/user-store.js';
import type { UserPhoneChangeCall } from './phone-change-input.js';
import { warnOldNumber } from './phone-change-notice.js';
import { requestPendingPhoneChange } from './phone-change-pending.js';
import { fitReclaim, newPhoneClaim, reclaimedHolderWrites, reclaimForChange } from './phone-change-reclaim.js';
import type { UserPhoneChangeResult } from './phone-change-result.js';
import { invalidProof, taken } from './phone-change-rules.js';

// A new phone number (API contract 3.11 and 3.15): the classic SIM-swap takeover, so it takes fresh
// proof of the holder and proof of the new number (a type-2 proof verified under this user's token),
// and the old number is told. A strong session proven under STEP_UP_MAX_AGE_SECONDS ago (a PIN login
// on a settled device, a step-up) moves it at once, here; an SMS-strength one begun by a login under
// 10 minutes ago (an OTP login, which a SIM swapper passes, or a PIN login on a device on probation)
// makes a change that waits (phone-change-pending.ts).

type Label = 'user' | 'phone' | 'old_phone' | 'old_code' | 'proof' | 'notice' | 'session' | 'holder' | 'holder_session';

/** Rounds of the change: a race with the user's own changes, or with the holder of an unproven number. */
const MAX_ROUNDS = 5;
/**
 * Sessions ended in the change's transaction (100 items at most, about ten its own): the user's
 * other sessions and a reclaimed holder's; beyond these they are ended first.
 */
const OWN_SESSIONS_IN_TRANSACTION = 20;
const HOLDER_SESSIONS_IN_TRANSACTION = MAX_SESSIONS_IN_TRANSACTION - 20;

interface Change {
  user: UserRecord;
  /** The user's other sessions, ended in the transaction. */
  sessions: ReturnType<typeof sessionKey>[];
  reclaim: ReclaimWrite | undefined;
  releaseOld: boolean;
}

function changeWrites(
  app: App,
  call: UserPhoneChangeCall & RequestKey,
  proofHash: string,
  { user, sessions, reclaim, releaseOld }: Change,
): LabelledItem<Label>[] {
  const { table } = app;
  const { companyId, userId } = call.principal;
  const input = call.body;
  const nowMs = app.clock.now();
  const now = Math.floor(nowMs / 1000);
  const userType = user.user_type;
  const phone = { dialCode: input.dial_code, phoneNumber: input.phone_number, phoneE164: input.phone_e164 };
  const writes: LabelledItem<Label>[] = [
    {
      label: 'user',
      item: userPhoneChangeWrite(table, companyId, userId, {
        phone,
        seenE164: user.phone_e164,
        sessionVersion: user.session_version ?? 0,
        nowSeconds: now,
        requestRef: call.idempotencyRef,
      }),
    },
    { label: 'phone', item: newPhoneClaim(table, user, input.phone_e164, reclaim) },
    {
      label: 'proof',
      item: phoneProofConsume(table, companyId, proofHash, {
        phoneE164: input.phone_e164,
        userType,
        otpType: OtpType.PHONE_VERIFICATION,
        now,
        userId,
      }),
    },
    // A login code already sent to the old number is never verified after the change.
    {
      label: 'old_code',
      item: codeDelete(table, codeKey(companyId, { phone_e164: user.phone_e164, user_type: userType, otp_type: OtpType.LOGIN })),
    },
    ...securityNotificationWrites(table, companyId, userId, { event: SecurityEvent.PHONE_CHANGED, nowMs }).map((item) => ({
      label: 'notice' as const,
      item,
    })),
    ...sessions.map((key) => ({ label: 'session' as const, item: sessionEnd(table, key, { reason: 'phone_changed', atMs: nowMs }) })),
  ];
  // An old claim that is not the user's (never written) is left alone.
  if (releaseOld) writes.push({ label: 'old_phone', item: phoneClaimRelease(table, companyId, user.phone_e164, userType, userId) });
  if (reclaim) writes.push(...reclaimedHolderWrites(table, companyId, reclaim, nowMs));
  return writes;
}

/**
 * Moves the token user to a proven number (API contract 3.11). One transaction takes the new
 * number's claim (from a holder who never proved it, by contract 6's reclaim; a proven or disabled
 * holder: 409 code 7), releases the old one, updates the record (phone_verified 1), uses up the
 * proof, deletes a login code waiting on the old number, writes the security notice (event 6) and
 * ends the user's other sessions; it commits only if no session was granted since they were read
 * (session_version), and an OTP login to the old number is granted only while it is the user's. Then the old
 * number is told by SMS (a failure there is logged, never undoes the change).
 */
export async function userPhoneChange(
  app: App,
  call: UserPhoneChangeCall & RequestKey,
  texts: TextDispatch,
): Promise<UserPhoneChangeResult> {
  const { body: input, principal, company, origin } = call;
  const { companyId, userId, sessionId } = principal;
  const event = { company_id: companyId, user_id: userId };
  const refuse = async (error: AppError, outcome: string): Promise<never> => {
    audit(app, origin, 'phone_change_refused', { ...event, phone_ref: await phoneRef(app.keys, input.phone_e164), outcome });
    throw error;
  };
  const strong = isStrong(principal);
  try {
    if (strong) requireFreshStrong(app, principal, 'a phone change');
    else requireFreshLogin(app, principal);
  } catch (error) {
    return refuse(error as AppError, 'stale_login');
  }

  if (!input.phone_verification_token) {
    return refuse(
      fieldError(
        'PHONE_NOT_VERIFIED',
        'phone_verification_token',
        'is required: a proof of the new number (otp_type 2, verified with this user’s token)',
      ),
      'no_proof',
    );
  }
  const proofHash = hashToken(input.phone_verification_token);
  if (!strong) {
    // An SMS code is what a SIM swapper passes: the change waits (and an OTP login's takes the login PIN).
    const user = await getUser(app.table, companyId, userId, true);
    if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
    if (user.phone_e164 === input.phone_e164) {
      return refuse(fieldError('BAD_REQUEST', 'phone_number', 'is already this account’s number'), 'same_number');
    }
    return requestPendingPhoneChange(app, call, texts, { user, proofHash });
  }
  const kept = sessionKey(companyId, userId, sessionId).sk;
  const others = async (begunBy?: number) =>
    (await querySessions(app.table, companyId, userId))
      .filter(({ key, createdAt }) => key.sk !== kept && (begunBy === undefined || createdAt <= begunBy))
      .map(({ key }) => key);
  let reclaim: ReclaimWrite | undefined;
  let releaseOld = true;
  for (let round = 1; ; round++) {
    // The user first, then the sessions: a session granted after this read changes the version the change conditions on.
    const user = await getUser(app.table, companyId, userId, true);
    if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
    if (user.phone_e164 === input.phone_e164) {
      const moved = movedByThisRequest(app, user, call.idempotencyRef);
      if (!moved) return refuse(fieldError('BAD_REQUEST', 'phone_number', 'is already this account’s number'), 'same_number');
      // This very request moved it, and its answer was lost (a 503 after the commit): answer as it
      // would have, ending the sessions begun before the change that its first run may not have
      // reached, and telling the old number (perhaps twice).
      const before = await others(moved.at);
      if (before.length) await endSessions(app.table, before, { reason: 'phone_changed', atMs: app.clock.now() });
      await warnOldNumber(app, texts, { company, origin, userId, oldPhoneE164: moved.from });
      return { message: 'Phone number changed', revoked: before.length };
    }
    const before = await others();
    // Too many for one transaction: the rest end once it has committed, never before (a refused change ends nothing).
    const sessions = before.slice(0, OWN_SESSIONS_IN_TRANSACTION);
    if (reclaim) reclaim = fitReclaim(reclaim, HOLDER_SESSIONS_IN_TRANSACTION);
    try {
      await writeTransaction(app.table, changeWrites(app, call, proofHash, { user, sessions, reclaim, releaseOld }));
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = new Set(error.labels as Label[]);
      if (failed.has('proof')) return refuse(invalidProof(), 'proof_invalid');
      if (round >= MAX_ROUNDS) throw accountBusy();
      if (failed.has('phone') || failed.has('holder')) {
        // The number is held (or its holder changed since read): an unproven holder's is taken over.
        reclaim = await reclaimForChange(app, user, input.phone_e164);
        if (!reclaim) return refuse(taken(), 'phone_taken');
        continue;
      }
      // The record still had that number, and yet its claim is not the user's: leave it.
      if (failed.has('old_phone') && !failed.has('user')) releaseOld = false;
      // Otherwise the user changed meanwhile (a session granted, a claim moved): read again.
      continue;
    }
    const later = before.slice(OWN_SESSIONS_IN_TRANSACTION);
    if (later.length) await endSessions(app.table, later, { reason: 'phone_changed', atMs: app.clock.now() });
    if (reclaim) await endReclaimedLater(app, reclaim);
    const revoked = before.length;
    const [newRef, oldRef] = await Promise.all([phoneRef(app.keys, input.phone_e164), phoneRef(app.keys, user.phone_e164)]);
    audit(app, origin, 'phone_changed', { ...event, phone_ref: newRef, old_phone_ref: oldRef, outcome: 'changed', revoked });
    audit(app, origin, 'sessions_revoked', { ...event, outcome: 'phone_changed', revoked });
    if (reclaim) auditReclaim(app, origin, { ...event, phone_ref: newRef }, reclaim);
    await warnOldNumber(app, texts, { company, origin, userId, oldPhoneE164: user.phone_e164 });
    return { message: 'Phone number changed', revoked };
  }
}

/**
 * The number this very request moved the user from, and when, while its Idempotency-Key lives: a
 * request sent again after its key's end is a new request, never the continuation of the old one.
 */
function movedByThisRequest(
  app: Pick<App, 'clock'>,
  user: UserRecord,
  requestRef: string | undefined,
): { from: string; at: number } | undefined {
  const moved = user as UserRecord & { phone_changed_by_request?: string; phone_changed_from?: string; phone_changed_at?: number };
  if (!requestRef || moved.phone_changed_by_request !== requestRef || !moved.phone_changed_from || moved.phone_changed_at === undefined)
    return undefined;
  if (epochSeconds(app.clock) - moved.phone_changed_at >= IDEMPOTENCY_WINDOW_SECONDS) return undefined;
  return { from: moved.phone_changed_from, at: moved.phone_changed_at };
}
