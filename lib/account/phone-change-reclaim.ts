import type { App } from '../app-context.js';
import { phoneReclaim } from '../registration/phone-reclaim.js';
import type { ReclaimWrite } from '../store/registration-store.js';
import { sessionEnd } from '../store/session-store.js';
import type { Table } from '../store/table.js';
import type { LabelledItem } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { emailClaimRelease, phoneClaimMove, phoneClaimPut, type UserRecord, userPhoneReclaimed } from '../store/user-store.js';

// A phone change takes its new number from a holder who never proved it (API contract 6's reclaim),
// whether it moves at once (phone-change.ts) or completes after its hold (phone-change-completion.ts):
// the change proved the number, so it is a proven claim. What both write for it lives here.

/** The user's phone change may take the number from its holder: what that takes, or undefined (a proven, disabled or staff holder, or none). */
export async function reclaimForChange(
  app: Pick<App, 'table' | 'clock' | 'config'>,
  user: UserRecord,
  phoneE164: string,
): Promise<ReclaimWrite | undefined> {
  // The user's own referrer may hold it: a change is no registration, its referral is long settled.
  const reclaim = await phoneReclaim(app, { ...user, phone_e164: phoneE164, referred_by: undefined });
  return reclaim?.holder.user_id === user.user_id ? undefined : reclaim;
}

/** At most `room` of the holder's sessions end in the change's transaction; the rest right after it commits (endReclaimedLater). */
export function fitReclaim(reclaim: ReclaimWrite, room: number): ReclaimWrite {
  const fits = Math.max(0, room);
  if (reclaim.sessions.length <= fits) return reclaim;
  return {
    ...reclaim,
    sessions: reclaim.sessions.slice(0, fits),
    laterSessions: [...reclaim.sessions.slice(fits), ...reclaim.laterSessions],
  };
}

/** The claim on the new number: taken from the holder read (only while they still hold it), or put where none is. */
export function newPhoneClaim(
  table: Table,
  user: Pick<UserRecord, 'company_id' | 'user_id' | 'user_type'>,
  phoneE164: string,
  reclaim: ReclaimWrite | undefined,
) {
  const { company_id: companyId, user_id: userId, user_type: userType } = user;
  return reclaim
    ? phoneClaimMove(table, companyId, phoneE164, userType, { userId, statusId: UserStatus.ACTIVE }, reclaim.holder.user_id)
    : phoneClaimPut(table, companyId, phoneE164, userType, userId, UserStatus.ACTIVE);
}

/**
 * What becomes of the holder in the change's transaction: status PHONE_RECLAIMED (only while still
 * active, unproven and without a session granted since read), their email free again as a
 * registration's reclaim leaves it, and their sessions (those that fit) ended.
 */
export function reclaimedHolderWrites(
  table: Table,
  companyId: string,
  reclaim: ReclaimWrite,
  nowMs: number,
): LabelledItem<'holder' | 'holder_session'>[] {
  const { holder } = reclaim;
  const writes: LabelledItem<'holder' | 'holder_session'>[] = [
    { label: 'holder', item: userPhoneReclaimed(table, companyId, holder.user_id, reclaim.sessionVersion, Math.floor(nowMs / 1000)) },
  ];
  if (holder.email)
    writes.push({ label: 'holder', item: emailClaimRelease(table, companyId, holder.email, holder.user_type, holder.user_id) });
  const reclaimed = { reason: 'reclaimed', atMs: nowMs } as const;
  writes.push(...reclaim.sessions.map((key) => ({ label: 'holder_session' as const, item: sessionEnd(table, key, reclaimed) })));
  return writes;
}
