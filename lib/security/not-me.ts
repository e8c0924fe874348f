import type { App } from '../app-context.js';
import type { Principal, RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { type DeviceRemoval, deviceRemoval } from '../devices/device-binding.js';
import { isSettled } from '../devices/device-settlement.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { accountBusy } from '../sessions/end-sessions.js';
import { requireFreshStrong } from '../sessions/session-strength.js';
import { deviceCountChange, queryDevicesAndChanges, type UserDeviceRecord } from '../store/device-store.js';
import { sessionKey } from '../store/keys.js';
import { passkeyCountChange, passkeyRemoveWrites, queryPasskeys } from '../store/passkey-store.js';
import { isLive, type PendingChange, withKind } from '../store/pending-change-store.js';
import { endSessions, querySessions } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser, type UserRecord } from '../store/user-store.js';
import type { NotMeCall } from './not-me-input.js';
import type { NotMeResult } from './not-me-result.js';

// The owner's way back (API contract 3.15): from the settled phone, a strong session proven a moment
// ago undoes whatever someone holding the number did. Every change that waits is cancelled (but a
// recovery by support: only staff or an older credential cancel that), every device on probation is
// removed with its sessions, and every other session ends; notice 12 says so. login_pin takes
// not_me: 1 to do it in the transaction that begins the owner's session (notMeUndo), and so does a
// passkey login. Passkeys registered less than CREDENTIAL_PROBATION_HOURS ago are removed too.

/** What not_me undoes, for one transaction, and what it ends once that has committed. */
export interface NotMeUndo {
  items: LabelledItem<string>[];
  /** Devices removed: the user's device count goes down by as many, by the caller's own write of the user. */
  devicesRemoved: number;
  cancelled: number;
  removals: DeviceRemoval[];
  /** Passkeys registered less than CREDENTIAL_PROBATION_HOURS ago, removed (contract 3.15, second reading). */
  passkeysRemoved: number;
}

/** The writes of not_me for a user whose devices and changes were read: the changes ended, the probation devices removed, notice 12. */
export async function notMeUndo(
  app: App,
  user: UserRecord,
  read: { devices: UserDeviceRecord[]; changes: PendingChange[] },
  requestRef: string | undefined,
  /** The passkey the owner's session begins with (a passkey login with not_me): kept, whatever its age. */
  keepPasskeyId?: string,
): Promise<NotMeUndo> {
  const { company_id: companyId, user_id: userId } = user;
  const now = epochSeconds(app.clock);
  const cancelled = read.changes.filter((change) => isLive(change, now) && change.via === 'user');
  const items: LabelledItem<string>[] = cancelled.flatMap((change) =>
    pendingChangeEndWrites(app, companyId, userId, change, { reason: 'not_me', requestRef, quiet: true }),
  );
  const removals: DeviceRemoval[] = [];
  for (const device of read.devices.filter((listed) => !isSettled(app.config, listed, user.user_type, now))) {
    const removal = await deviceRemoval(app, companyId, userId, device.device_key);
    if (removal) {
      await removal.endOverflow();
      removals.push(removal);
      items.push(...removal.items);
    }
  }
  // A passkey added lately may be whoever held a strong session meanwhile (a phone left unlocked): it goes too.
  const youngSince = now - app.config.credentialProbationHours * 3600;
  const young = (await queryPasskeys(app.table, companyId, userId)).filter(
    (passkey) => passkey.created_at > youngSince && passkey.passkey_id !== keepPasskeyId,
  );
  for (const passkey of young)
    items.push(...passkeyRemoveWrites(app.table, companyId, passkey, false).map((item) => ({ label: 'passkey', item })));
  if (young.length) items.push({ label: 'passkey', item: passkeyCountChange(app.table, companyId, userId, -young.length) });
  const notice = securityNotificationWrites(app.table, companyId, userId, { event: SecurityEvent.SECURED_BY_YOU, nowMs: app.clock.now() });
  items.push(...notice.map((item) => ({ label: 'notice', item })));
  return { items, devicesRemoved: removals.length, cancelled: cancelled.length, removals, passkeysRemoved: young.length };
}

/** Once not_me's transaction has committed: every session but the kept one ends. Answers how many. */
export async function endOtherSessions(
  app: App,
  undo: NotMeUndo,
  owner: { companyId: string; userId: string; keptSessionId: string },
): Promise<number> {
  const kept = sessionKey(owner.companyId, owner.userId, owner.keptSessionId).sk;
  const lateOnDevices = (await Promise.all(undo.removals.map((removal) => removal.endLateSessions()))).reduce(
    (sum, count) => sum + count,
    0,
  );
  const others = (await querySessions(app.table, owner.companyId, owner.userId)).map(({ key }) => key).filter(({ sk }) => sk !== kept);
  if (others.length) await endSessions(app.table, others, { reason: 'not_me', atMs: app.clock.now() });
  return others.length + lateOnDevices + undo.removals.reduce((sum, removal) => sum + removal.sessions.length, 0);
}

/** The audit event of a not_me, wherever it ran. */
export function auditNotMe(
  app: App,
  origin: RequestOrigin | undefined,
  owner: Pick<Principal, 'companyId' | 'userId'>,
  result: Omit<NotMeResult, 'message'>,
): void {
  audit(app, origin, 'not_me', { company_id: owner.companyId, user_id: owner.userId, outcome: 'secured', ...result });
}

const MAX_ROUNDS = 5;

/** POST /wallet/v3/user/security/not_me: a fresh strong session undoes what someone with the number did. */
export async function notMe(app: App, { principal, origin, idempotencyRef }: NotMeCall & RequestKey): Promise<NotMeResult> {
  requireFreshStrong(app, principal, '"Not me"');
  const { companyId, userId } = principal;
  for (let round = 1; ; round++) {
    const [user, read] = await Promise.all([
      getUser(app.table, companyId, userId, true),
      queryDevicesAndChanges(app.table, companyId, userId),
    ]);
    if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
    const undo = await notMeUndo(
      app,
      user,
      { devices: read.devices, changes: read.changes.map((item) => withKind(item)!) },
      idempotencyRef,
    );
    const items = undo.devicesRemoved
      ? [...undo.items, { label: 'user', item: deviceCountChange(app.table, companyId, userId, -undo.devicesRemoved) }]
      : undo.items;
    try {
      await writeTransaction(app.table, items);
    } catch (error) {
      // A change ended or a device removed meanwhile: read again.
      if (!(error instanceof ConditionsFailed) || round >= MAX_ROUNDS) throw error instanceof ConditionsFailed ? accountBusy() : error;
      continue;
    }
    const revoked = await endOtherSessions(app, undo, { companyId, userId, keptSessionId: principal.sessionId });
    const result = { cancelled: undo.cancelled, revoked, devices_removed: undo.devicesRemoved, passkeys_removed: undo.passkeysRemoved };
    auditNotMe(app, origin, principal, result);
    return { message: 'Secured: every change that waited is cancelled, every other session ended and new devices removed', ...result };
  }
}
