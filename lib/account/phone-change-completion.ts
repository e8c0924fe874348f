import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { codeKey } from '../codes/otp-codes.js';
import { OtpType } from '../codes/otp-types.js';
import type { Company } from '../companies/companies.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, phoneRef, type RequestOrigin } from '../observability/audit.js';
import { auditReclaim, endReclaimedLater, mayBeReclaimed } from '../registration/phone-reclaim.js';
import { accountBusy, MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { deviceRemoveWrites, queryUserDevices } from '../store/device-store.js';
import { type ItemKey, pendingChangeKey } from '../store/keys.js';
import { type PasskeyRecord, passkeyCountChange, passkeyRemoveWrites, queryPasskeys } from '../store/passkey-store.js';
import {
  getPendingPhoneChange,
  getPhoneChangeIndex,
  isLive,
  type PendingPhoneChange,
  type PhoneChangeIndex,
  pendingChangeComplete,
  pendingChangeEnd,
  phoneChangeIndexDelete,
} from '../store/pending-change-store.js';
import { codeDelete, userPhoneChange as userPhoneChangeWrite } from '../store/phone-change-store.js';
import type { ReclaimWrite } from '../store/registration-store.js';
import { endSessions, querySessions, sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getPhoneClaim, getUser, phoneClaimRelease, type UserRecord } from '../store/user-store.js';
import { warnOldNumber } from './phone-change-notice.js';
import { fitReclaim, newPhoneClaim, reclaimedHolderWrites, reclaimForChange } from './phone-change-reclaim.js';
import { taken } from './phone-change-rules.js';

// A pending phone change completes (API contract 3.11, amended in round 5) at the first OTP login to
// the new number from its effective_at on, within 7 days: login_phone finds the change by the number
// (dueChangeFor) and sends the code as if the number were registered; verify_otp, once the code is
// right, moves the account in one transaction (completePendingChange) and then grants the session.

/**
 * The user whose pending change a login to this (phone, user type) completes now, and that change.
 * A number held meanwhile (holderId) goes to the change only from a holder who never proved it: the
 * completion reclaims it (contract 6); a proven holder's login is theirs.
 */
export async function dueChangeFor(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  target: { phone_e164: string; user_type: number },
  holderId?: string,
  /** The number's change index, when the caller read it beside its other reads. */
  read?: PhoneChangeIndex,
): Promise<{ userId: string; changeId: string } | undefined> {
  const index = read ?? (await getPhoneChangeIndex(app.table, companyId, target.phone_e164, target.user_type));
  const now = epochSeconds(app.clock);
  if (!index || index.effective_at > now || index.expires_at <= now) return undefined;
  // The index item is the change's only while it is live; a user no longer active gets no login SMS.
  const [user, change, holder] = await Promise.all([
    getUser(app.table, companyId, index.user_id),
    getPendingPhoneChange(app.table, companyId, index.user_id),
    holderId === undefined ? undefined : getUser(app.table, companyId, holderId),
  ]);
  if (holderId !== undefined && (!holder || !mayBeReclaimed(holder) || holderId === index.user_id)) return undefined;
  if (user?.status_id !== UserStatus.ACTIVE || !isLive(change, now) || change.change_id !== index.change_id) return undefined;
  if (change.phone_e164 !== target.phone_e164) return undefined;
  return { userId: index.user_id, changeId: index.change_id };
}

type Label =
  | 'user'
  | 'phone'
  | 'old_phone'
  | 'pending'
  | 'index'
  | 'old_code'
  | 'notice'
  | 'session'
  | 'device'
  | 'passkey'
  | 'holder'
  | 'holder_session';

const MAX_ROUNDS = 5;
/** Sessions ended in the move's own transaction; the rest once it has committed. */
const SESSIONS_IN_TRANSACTION = MAX_SESSIONS_IN_TRANSACTION;

/** The code's change is gone (cancelled, replaced, void) between the send and the verify: the code logs no one in. */
const changeGone = () => new AppError('OTP_EXPIRED', { detail: 'the pending phone change this code was for is over' });

export interface Completion {
  company: Company;
  origin: RequestOrigin;
  userId: string;
  changeId: string;
  phoneE164: string;
  requestRef: string | undefined;
}

/**
 * Moves the account to the number of its pending change, in one transaction as the immediate change
 * does: the new claim taken (from a holder who registered it meanwhile without proving it, by
 * contract 6's reclaim, for this login's code reached the number: a proven claim; held by a proven or
 * disabled user: 409 code 7, and the change is void), the old one released, the record updated
 * (phone_verified 1), every session of the user ended, the notice (event 6) written, the pending
 * items deleted (only while the change is live and due). Then the old number is told. A retry
 * whose first run moved the account finds the user on the number: done.
 */
export async function completePendingChange(app: App, texts: TextDispatch, completion: Completion): Promise<void> {
  const { company, origin, userId, changeId, phoneE164, requestRef } = completion;
  const companyId = company.company_id;
  let releaseOld = true;
  let reclaim: ReclaimWrite | undefined;
  for (let round = 1; ; round++) {
    const [user, change] = await Promise.all([
      getUser(app.table, companyId, userId, true),
      getPendingPhoneChange(app.table, companyId, userId, true),
    ]);
    if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
    // This very login moved it (its answer lost), or another completed it: the session is the user's.
    if (user.phone_e164 === phoneE164) return;
    const now = epochSeconds(app.clock);
    if (change?.change_id === changeId && change.ended_reason === 'void') {
      // A deletion voids the change in the transaction that ends the account: read after it, the user says which.
      const after = await getUser(app.table, companyId, userId, true);
      if (after?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
      throw taken();
    }
    if (!isLive(change, now) || change.change_id !== changeId || change.effective_at > now) throw changeGone();
    const recovery = change.via === 'support';
    const [sessions, devices, passkeys] = await Promise.all([
      querySessions(app.table, companyId, userId).then((found) => found.map(({ key }) => key)),
      recovery ? queryUserDevices(app.table, companyId, userId).then((found) => found.map((device) => device.device_key)) : [],
      // A recovery removes every passkey too (contract 3.15, second reading): whoever took the account may hold one.
      recovery ? queryPasskeys(app.table, companyId, userId) : [],
    ]);
    // Each device and passkey takes two items of the transaction (and the passkeys' count one): the sessions that do not fit end right after.
    const room = SESSIONS_IN_TRANSACTION - 2 * devices.length - 2 * passkeys.length - (passkeys.length ? 1 : 0);
    // A reclaimed holder's sessions take the room the user's leave; the rest too end right after.
    if (reclaim) reclaim = fitReclaim(reclaim, room - sessions.length);
    try {
      await writeTransaction(
        app.table,
        moveWrites(app, { user, change, sessions: sessions.slice(0, room), devices, passkeys, releaseOld, reclaim, requestRef }),
      );
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const failed = new Set(error.labels as Label[]);
      if (failed.has('phone') || failed.has('holder')) {
        // Held (or its holder changed since read): taken from a holder who never proved it, else the change is void.
        reclaim = await reclaimForChange(app, user, phoneE164);
        if (reclaim || !(await getPhoneClaim(app.table, companyId, phoneE164, user.user_type, true))) {
          if (round >= MAX_ROUNDS) throw accountBusy();
          continue;
        }
        // Taken meanwhile by a proven or disabled user (a registration, another user's change): the change is void.
        await voidChange(app, companyId, userId, change, requestRef);
        audit(app, origin, 'phone_change_refused', {
          company_id: companyId,
          user_id: userId,
          phone_ref: await phoneRef(app.keys, phoneE164),
          outcome: 'phone_taken_void',
        });
        throw taken();
      }
      if (round >= MAX_ROUNDS) throw accountBusy();
      if (failed.has('old_phone') && !failed.has('user')) releaseOld = false;
      continue;
    }
    const later = sessions.slice(room);
    if (later.length) await endSessions(app.table, later, { reason: endReasonOf(change), atMs: app.clock.now() });
    if (reclaim) await endReclaimedLater(app, reclaim);
    const [newRef, oldRef] = await Promise.all([phoneRef(app.keys, phoneE164), phoneRef(app.keys, user.phone_e164)]);
    const event = { company_id: companyId, user_id: userId };
    audit(app, origin, 'phone_changed', {
      ...event,
      phone_ref: newRef,
      old_phone_ref: oldRef,
      outcome: recovery ? 'recovered' : 'completed',
      revoked: sessions.length,
      ...(recovery ? { devices: devices.length } : {}),
    });
    audit(app, origin, 'sessions_revoked', { ...event, outcome: endReasonOf(change), revoked: sessions.length });
    if (reclaim) auditReclaim(app, origin, { ...event, phone_ref: newRef }, reclaim);
    await warnOldNumber(app, texts, { company, origin, userId, oldPhoneE164: user.phone_e164 });
    return;
  }
}

/** A recovery by support (contract 3.14) ends the sessions as recovered; the user's own change as phone_changed. */
const endReasonOf = (change: PendingPhoneChange) => (change.via === 'support' ? 'recovered' : 'phone_changed');

function moveWrites(
  app: App,
  {
    user,
    change,
    sessions,
    devices,
    passkeys,
    releaseOld,
    reclaim,
    requestRef,
  }: {
    user: UserRecord;
    change: PendingPhoneChange;
    sessions: ItemKey[];
    /** The bound devices a recovery removes: the user lost them, and whoever holds one is no longer trusted. */
    devices: string[];
    /** The passkeys a recovery removes (contract 3.15, second reading). */
    passkeys: PasskeyRecord[];
    releaseOld: boolean;
    /** The unproven holder the number is taken from, if any. */
    reclaim: ReclaimWrite | undefined;
    requestRef: string | undefined;
  },
): LabelledItem<Label>[] {
  const { table } = app;
  const companyId = user.company_id;
  const userId = user.user_id;
  const userType = user.user_type;
  const nowMs = app.clock.now();
  const now = Math.floor(nowMs / 1000);
  const phone = { dialCode: change.dial_code, phoneNumber: change.phone_number, phoneE164: change.phone_e164 };
  const writes: LabelledItem<Label>[] = [
    {
      label: 'user',
      item: userPhoneChangeWrite(table, companyId, userId, {
        phone,
        seenE164: user.phone_e164,
        sessionVersion: user.session_version ?? 0,
        nowSeconds: now,
        requestRef,
        ...(devices.length ? { devicesRemoved: true as const } : {}),
      }),
    },
    { label: 'phone', item: newPhoneClaim(table, user, change.phone_e164, reclaim) },
    { label: 'pending', item: pendingChangeComplete(table, pendingChangeKey(companyId, userId, 'phone'), change.change_id, now) },
    { label: 'index', item: phoneChangeIndexDelete(table, companyId, change.phone_e164, userType, userId) },
    // A login code already sent to the old number is never verified after the change.
    {
      label: 'old_code',
      item: codeDelete(table, codeKey(companyId, { phone_e164: user.phone_e164, user_type: userType, otp_type: OtpType.LOGIN })),
    },
    ...securityNotificationWrites(table, companyId, userId, { event: SecurityEvent.PHONE_CHANGED, nowMs }).map((item) => ({
      label: 'notice' as const,
      item,
    })),
    ...sessions.map((key) => ({ label: 'session' as const, item: sessionEnd(table, key, { reason: endReasonOf(change), atMs: nowMs }) })),
    ...devices.flatMap((deviceKey) => {
      const removal = deviceRemoveWrites(table, companyId, userId, deviceKey);
      return [
        { label: 'device' as const, item: removal.index },
        { label: 'device' as const, item: removal.listing },
      ];
    }),
  ];
  for (const passkey of passkeys) {
    writes.push(...passkeyRemoveWrites(table, companyId, passkey, false).map((item) => ({ label: 'passkey' as const, item })));
  }
  if (passkeys.length) writes.push({ label: 'passkey' as const, item: passkeyCountChange(table, companyId, userId, -passkeys.length) });
  if (releaseOld) writes.push({ label: 'old_phone', item: phoneClaimRelease(table, companyId, user.phone_e164, userType, userId) });
  if (reclaim) writes.push(...reclaimedHolderWrites(table, companyId, reclaim, nowMs));
  return writes;
}

/** Marks the change void and frees its number's index item; a change ended meanwhile stays as it is. */
async function voidChange(
  app: App,
  companyId: string,
  userId: string,
  change: PendingPhoneChange,
  requestRef: string | undefined,
): Promise<void> {
  try {
    await writeTransaction(app.table, [
      {
        label: 'pending',
        item: pendingChangeEnd(app.table, pendingChangeKey(companyId, userId, 'phone'), {
          changeId: change.change_id,
          reason: 'void',
          now: epochSeconds(app.clock),
          requestRef,
        }),
      },
      { label: 'index', item: phoneChangeIndexDelete(app.table, companyId, change.phone_e164, change.user_type, userId) },
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
  }
}
