import type { App } from '../app-context.js';
import type { Call, Principal, RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { listedDeviceOf } from '../devices/devices.js';
import { AppError } from '../errors.js';
import { LISTED_NOTIFICATION_FIELDS, type ListedNotification } from '../notifications/listed-notification.js';
import { NotificationType } from '../notifications/notification-record.js';
import { listedPasskeyOf } from '../passkeys/passkey-list.js';
import { holdChange } from '../pending-changes/held-change.js';
import { waitingChanges } from '../pending-changes/pending-change-list.js';
import { listedSessionOf } from '../sessions/listed-session.js';
import { isStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { listedStaffActionOf } from '../staff/listed-staff-action.js';
import type { UserDeviceRecord } from '../store/device-store.js';
import {
  NOTIFICATION_PREFIX,
  PENDING_CHANGE_PREFIX,
  SESSION_PREFIX,
  STAFF_ACTION_PREFIX,
  USER_DEVICE_PREFIX,
  USER_PASSKEY_PREFIX,
  USER_SORT_KEY,
  userKey,
} from '../store/keys.js';
import { queryPartitionPrefix } from '../store/partition-query.js';
import type { PasskeyRecord } from '../store/passkey-store.js';
import { getPendingChange, isRunning, withKind } from '../store/pending-change-store.js';
import { referralCountIn } from '../store/referral-store.js';
import type { StaffActionRecord } from '../store/staff-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import type { ExportDocument, UserExportResult } from './export-result.js';
import { profileOf } from './profile.js';

// The right of access (API contract 3.11, GDPR art. 15, DPDP Act s. 11): one JSON document of what
// the wallet holds about a user. A user's items all live in their own partition (keys.ts), so one
// strongly consistent Query, page after page, reads them all; each kind is shown by its own fields
// only, so a hash (a PIN's, a password's, a refresh token's) never reaches the document.

/** The export's call: a GET with the user's token, no body. */
export type UserExportCall = Call<Record<string, never>, Record<string, never>, Principal> & RequestKey;

const byNewest = <Item extends { created_date: number }>(items: Item[]) => [...items].sort((a, b) => b.created_date - a.created_date);

/** Everything held about one user of a company: the answer of GET /wallet/v3/user/export and of npm run user:export. */
export async function accountExport(
  app: Pick<App, 'table' | 'clock' | 'config'>,
  companyId: string,
  userId: string,
): Promise<ExportDocument> {
  const items = await queryPartitionPrefix(app.table, userKey(companyId, userId).pk, '');
  const user = items.find((item) => item.sk === USER_SORT_KEY) as UserRecord | undefined;
  if (!user) throw new AppError('NOT_FOUND', { detail: 'no such user' });
  const withPrefix = (prefix: string) => items.filter((item) => String(item.sk).startsWith(prefix));
  const notifications = byNewest(
    withPrefix(NOTIFICATION_PREFIX).map(
      (item) => Object.fromEntries(LISTED_NOTIFICATION_FIELDS.map((field) => [field, item[field]])) as ListedNotification,
    ),
  );
  const now = epochSeconds(app.clock);
  return {
    exported_date: now,
    user: profileOf(user),
    referral: { referral_code: user.referral_code, referral_count: referralCountIn(items as { sk: string }[]) },
    devices: (withPrefix(USER_DEVICE_PREFIX) as unknown as UserDeviceRecord[]).map((device) =>
      listedDeviceOf(app.config, device, user.user_type, now),
    ),
    // Passkeys (contract 3.16) as their list shows them: never a key or a credential id.
    passkeys: (withPrefix(USER_PASSKEY_PREFIX) as unknown as PasskeyRecord[])
      .sort((a, b) => b.created_at - a.created_at)
      .map(listedPasskeyOf),
    pending_changes: waitingChanges(
      withPrefix(PENDING_CHANGE_PREFIX).map((item) => withKind(item)!),
      now,
    ),
    sessions: byNewest(
      // An ended session is kept only until its TTL, so the stream can say why it ended: it is no session of the user's.
      withPrefix(SESSION_PREFIX)
        .filter((item) => item.ended_reason === undefined)
        .map(listedSessionOf),
    ),
    notifications,
    security_events: notifications.filter((notice) => notice.notification_type === NotificationType.SECURITY),
    // Who looked at me (contract 3.14): the sort key leads with the time, so newest first is the reverse.
    staff_actions: (withPrefix(STAFF_ACTION_PREFIX) as unknown as StaffActionRecord[]).reverse().map(listedStaffActionOf),
  };
}

/** A due held export may be fetched for this long after its effective_at (a lost answer, a second device), then it is void. */
export const HELD_EXPORT_DELIVERY_SECONDS = 7 * 24 * 3600;

/**
 * GET /wallet/v3/user/export (API contract 3.11 and 3.15, second reading). A strong session gets the
 * document at once. An SMS-strength one (a SIM swapper has the codes) gets it only through a held
 * change of kind `export`: the first request holds one for PHONE_CHANGE_HOLD_HOURS, told to the
 * user's list and by SMS to the number and cancellable from any session; asked again while it
 * waits, the same change is answered (a GET writes nothing more and never restarts the clock); once
 * due, any session of the user gets the document for HELD_EXPORT_DELIVERY_SECONDS.
 */
export async function userExport(app: App, call: UserExportCall, texts: TextDispatch): Promise<UserExportResult> {
  const { principal } = call;
  const { companyId, userId } = principal;
  if (isStrong(principal)) return accountExport(app, companyId, userId);
  const now = epochSeconds(app.clock);
  const waiting = await getPendingChange(app.table, companyId, userId, 'export', true);
  if (isRunning(waiting, now)) {
    if (waiting.effective_at <= now) return accountExport(app, companyId, userId);
    return { message: 'Export pending', pending: 1, change_id: waiting.change_id, effective_at: waiting.effective_at };
  }
  const user = await getUser(app.table, companyId, userId, true);
  if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  return holdChange(app, call, texts, {
    kind: 'export',
    details: {},
    warnPhoneE164: user.phone_e164,
    completesWithinSeconds: HELD_EXPORT_DELIVERY_SECONDS,
    message: 'Export pending',
  });
}
