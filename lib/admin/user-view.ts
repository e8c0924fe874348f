import { phoneChangeOf, profileOf } from '../account/profile.js';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { byLastUse, listedDeviceOf } from '../devices/devices.js';
import { AppError } from '../errors.js';
import { NotificationType } from '../notifications/notification-record.js';
import { listedPasskeys } from '../passkeys/passkey-list.js';
import { waitingChanges } from '../pending-changes/pending-change-list.js';
import { pinStandingOf } from '../pins/pin-attempts.js';
import { listedSessionOf, sessionIdOf } from '../sessions/listed-session.js';
import { listedStaffActionOf } from '../staff/listed-staff-action.js';
import { auditStaffAction, staffActionRecord } from '../staff/staff-actions.js';
import { requireStaff } from '../staff/staff-gate.js';
import { countLookup } from '../staff/staff-lookups.js';
import { queryUserDevices } from '../store/device-store.js';
import { queryNotifications } from '../store/notification-store.js';
import { isLive, type PendingPhoneChange, queryPendingChanges } from '../store/pending-change-store.js';
import { PIN_HASH_ATTRIBUTE, type PinType, queryPinTallies } from '../store/pin-store.js';
import { getUserWithReferralCount } from '../store/referral-store.js';
import { querySessionListing } from '../store/session-store.js';
import { queryStaffActionsOn } from '../store/staff-store.js';
import { writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import type { UserRecord } from '../store/user-store.js';
import { maskEmail } from './user-search.js';
import type { UserViewCall } from './user-view-input.js';
import type { PinStanding, UserViewResult, ViewedProfile } from './user-view-result.js';

// POST /wallet/v3/admin/users/view (API contract 3.14): one user of the company as support needs to
// see them. Counted against the employee's hour with the searches (staff-lookups.ts), then recorded
// (action `view`), found or not: an id nobody holds costs a lookup too, so probing is not free.
// The record is written before the reads, so the view lists itself among the staff actions.

const SECURITY_EVENTS_SHOWN = 20;
const STAFF_ACTIONS_SHOWN = 50;
const SECURITY_EVENT_FIELDS = ['notification_event_type', 'notification_title', 'created_date'] as const;

/** The profile with the phone and email masked, or whole when revealed. */
function viewedProfileOf(user: UserRecord, reveal: boolean): ViewedProfile {
  const { email, dial_code, phone_number, ...profile } = profileOf(user);
  // An erased user's shell (status 5) keeps no phone or email.
  const shown = { phone_last4: (phone_number ?? '').slice(-4), email_masked: maskEmail(email ?? undefined) };
  return reveal ? { ...profile, ...shown, dial_code, phone_number, email } : { ...profile, ...shown };
}

/**
 * Where a PIN stands, over its tallies (API contract 3.15: per device, per session strength): locked
 * when any tally is, with the fewest tries left of any, so support sees the worst a device meets.
 */
async function pinStanding(app: App, user: UserRecord, pinType: PinType): Promise<PinStanding> {
  const tallies = await queryPinTallies(app.table, { companyId: user.company_id, userId: user.user_id, pinType });
  const standings = tallies.map((tally) => pinStandingOf(app, tally));
  const locked = standings.some((standing) => standing.locked);
  const attemptsLeft = Math.min(app.config.pinMaxFailures, ...standings.map((standing) => standing.attemptsLeft));
  return { set: user[PIN_HASH_ATTRIBUTE[pinType]] ? 1 : 0, locked: locked ? 1 : 0, attempts_left: attemptsLeft };
}

export async function userView(app: App, call: UserViewCall): Promise<UserViewResult> {
  const { companyId } = call.principal;
  const { user_id: userId, reason } = call.body;
  const reveal = call.body.reveal === 1;
  // Revealing is an admin's alone, on a fresh strong session; the role is checked before the session's strength.
  const staff = await requireStaff(app, call.principal, reveal ? ['admin'] : ['support', 'admin'], { fresh: reveal });
  await countLookup(app, staff, companyId);
  const found = await getUserWithReferralCount(app.table, companyId, userId);
  // A view of nobody is kept in the company's log only: there is no user to keep it beside.
  const { record, writes } = await staffActionRecord(app, staff.chain, {
    companyId,
    actorId: staff.userId,
    action: 'view',
    userId: found?.user.user_id,
    reason,
  });
  await writeTransaction(app.table, writes);
  auditStaffAction(app, call.origin, record, found ? (reveal ? 'revealed' : 'masked') : 'none');
  if (!found) throw new AppError('NOT_FOUND', { detail: 'no such user in this company' });

  const { user, referralCount } = found;
  const now = epochSeconds(app.clock);
  const [devices, sessions, login, transaction, changes, securityEvents, staffActions, passkeys] = await Promise.all([
    queryUserDevices(app.table, companyId, userId),
    querySessionListing(app.table, companyId, userId),
    pinStanding(app, user, 'login'),
    pinStanding(app, user, 'transaction'),
    queryPendingChanges(app.table, companyId, userId),
    queryNotifications(app.table, companyId, userId, {
      fields: SECURITY_EVENT_FIELDS,
      limit: SECURITY_EVENTS_SHOWN,
      afterSortKey: undefined,
      filter: { type: NotificationType.SECURITY },
    }),
    queryStaffActionsOn(app.table, companyId, userId, STAFF_ACTIONS_SHOWN),
    listedPasskeys(app, companyId, userId),
  ]);
  const eraseAfter = (user as { erase_after?: number }).erase_after;
  return {
    user: viewedProfileOf(user, reveal),
    devices: byLastUse(devices).map((device) => listedDeviceOf(app.config, device, user.user_type, now)),
    // Passkeys (contract 3.16) as the user's own list shows them: never a key or a credential id.
    passkeys,
    sessions: sessions
      // Expired sessions stay stored until DynamoDB's TTL removes them, late: they are no way in.
      .filter((item) => Number(item.expires_at) > now)
      .map((item) => ({ ...listedSessionOf(item), sid: sessionIdOf(item) }))
      .sort((a, b) => b.created_date - a.created_date),
    pins: { login, transaction },
    pending_phone_change: pendingChangeForStaff(phoneChangeOf(changes), now),
    pending_changes: waitingChanges(changes, now),
    deletion: user.status_id === UserStatus.DELETION_REQUESTED && eraseAfter !== undefined ? { erase_after: eraseAfter } : null,
    referral_count: referralCount,
    security_events: securityEvents.notifications.map((notice) => ({
      notification_event_type: Number(notice.notification_event_type),
      notification_title: String(notice.notification_title),
      created_date: Number(notice.created_date),
    })),
    staff_actions: staffActions.map(listedStaffActionOf),
  };
}

/**
 * The pending phone change as staff see it: a running one, or a recovery awaiting its approval (the
 * approving admin takes its change_id from here), with who asked and who started it.
 */
function pendingChangeForStaff(change: PendingPhoneChange | undefined, now: number): UserViewResult['pending_phone_change'] {
  if (!isLive(change, now)) return null;
  return {
    change_id: change.change_id,
    effective_at: change.effective_at,
    phone_last4: change.phone_number.slice(-4),
    via: change.via,
    awaiting_approval: change.awaiting_approval ?? 0,
    started_by: change.started_by ?? null,
  };
}
