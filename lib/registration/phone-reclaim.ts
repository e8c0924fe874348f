import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import type { ReclaimWrite } from '../store/registration-store.js';
import { endSessions, querySessions } from '../store/session-store.js';
import { UserStatus } from '../store/user-status.js';
import { getPhoneClaim, getUser, type UserRecord } from '../store/user-store.js';
import { holderIsLive } from './live-holder.js';

// A phone held by a user who never proved it is taken over by a registration that proves it
// (API contract 6): the phone and email claims move to the new user, the holder's status becomes
// PHONE_RECLAIMED and every session of theirs ends, all in the registration's one write
// (lib/store/registration-store.ts). A verified holder is never displaced, nor a live one
// (live-holder.ts: a settled device used in the last 90 days, contract 3.15 second reading).

/**
 * What taking the phone over from its holder needs, or undefined when it may not be taken (no
 * holder any more, or one who proved it or was disabled). Read strongly consistently: the holder
 * first, then their sessions, so that a session granted after the read changes the version the
 * takeover conditions on.
 */
export async function phoneReclaim(app: Pick<App, 'table' | 'clock' | 'config'>, user: UserRecord): Promise<ReclaimWrite | undefined> {
  const claim = await getPhoneClaim(app.table, user.company_id, user.phone_e164, user.user_type, true);
  if (!claim) return undefined;
  const holder = await getUser(app.table, user.company_id, claim.user_id, true);
  if (!holder || !mayBeReclaimed(holder)) return undefined;
  // Nor one who uses the account (a settled device used in 90 days): a swapper with the codes must not take it.
  if (await holderIsLive(app, holder)) return undefined;
  if (holder.user_id === user.referred_by) {
    throw fieldError('INVALID_REFERRAL_CODE', 'referral_code', 'is the code of the user this phone is taken from');
  }
  const sessions = (await querySessions(app.table, user.company_id, claim.user_id)).map(({ key }) => key);
  return {
    holder,
    sessionVersion: holder.session_version ?? 0,
    sessions: sessions.slice(0, MAX_SESSIONS_IN_TRANSACTION),
    laterSessions: sessions.slice(MAX_SESSIONS_IN_TRANSACTION),
  };
}

/** Whether a proven claim may take the phone from this holder. */
export function mayBeReclaimed(holder: UserRecord): boolean {
  // A verified holder is never displaced, and neither is one an operator disabled: a reclaim
  // would turn the ban (DISABLED) into a mere reclaim (PHONE_RECLAIMED). Both 409.
  if (holder.phone_verified === 1 || holder.status_id !== UserStatus.ACTIVE) return false;
  // Nor an employee with a back-office role (contract 3.14): a registration would take a staff
  // account out of the company's count of active admins behind the last-admin rule's back.
  return (holder as { role?: string }).role === undefined;
}

/** Ends the holder's sessions that did not fit in the takeover's transaction, once it has committed. */
export async function endReclaimedLater(app: Pick<App, 'table' | 'clock'>, reclaim: ReclaimWrite): Promise<void> {
  if (reclaim.laterSessions.length) await endSessions(app.table, reclaim.laterSessions, { reason: 'reclaimed', atMs: app.clock.now() });
}

/** The security events of a reclaim: the phone taken, and the holder's sessions it ended. */
export function auditReclaim(
  app: Pick<App, 'logger' | 'metrics'>,
  origin: RequestOrigin | undefined,
  event: { company_id: string; user_id: string; phone_ref: string },
  reclaim: ReclaimWrite,
): void {
  const holderId = reclaim.holder.user_id;
  audit(app, origin, 'phone_reclaimed', { ...event, outcome: 'reclaimed', from_user_id: holderId });
  audit(app, origin, 'sessions_revoked', {
    ...event,
    user_id: holderId,
    outcome: 'phone_reclaimed',
    revoked: reclaim.sessions.length + reclaim.laterSessions.length,
  });
}
