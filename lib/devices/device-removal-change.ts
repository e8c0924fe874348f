import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { pendingChangeKey } from '../store/keys.js';
import { isDue, type PendingChange, type PendingDeviceRemoval, pendingChangeComplete } from '../store/pending-change-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { removeDevice } from './device-binding.js';

// A held removal of a settled device (API contract 3.15): asked for from an SMS-strength session, it
// waits PHONE_CHANGE_HOLD_HOURS; once due it takes effect at the device's next use (a PIN login, a
// step-up) or the next listing of the user's devices, whichever comes first: the binding and its
// sessions end in one transaction with the change's deletion.

/** The user's held removals that are due, by device. */
function dueRemovals(changes: PendingChange[], now: number): PendingDeviceRemoval[] {
  return changes.filter((change): change is PendingDeviceRemoval => change.kind === 'device_remove' && isDue(change, now));
}

/** Puts one due removal in place; false when it was done or ended meanwhile (the device is then as it is). */
async function putInPlace(
  app: App,
  origin: RequestOrigin | undefined,
  companyId: string,
  userId: string,
  change: PendingDeviceRemoval,
): Promise<boolean> {
  const now = epochSeconds(app.clock);
  const done = {
    label: 'pending',
    item: pendingChangeComplete(app.table, pendingChangeKey(companyId, userId, 'device_remove'), change.change_id, now),
  };
  try {
    const revoked = await removeDevice(app, companyId, userId, change.device_key, [done]);
    audit(app, origin, 'change_completed', {
      company_id: companyId,
      user_id: userId,
      outcome: 'device_removed',
      kind: 'device_remove',
      change_id: change.change_id,
      revoked,
    });
    return true;
  } catch (error) {
    const gone = error instanceof AppError && error.errorName === 'NOT_FOUND';
    if (!gone && !(error instanceof ConditionsFailed)) throw error;
    // The device went meanwhile (removed, reclaimed): the change that named it is void.
    if (gone) {
      const end = pendingChangeEndWrites(app, companyId, userId, change, { reason: 'void', requestRef: undefined, quiet: true });
      await writeTransaction(app.table, end).catch((failure: unknown) => {
        if (!(failure instanceof ConditionsFailed)) throw failure;
      });
    }
    return false;
  }
}

/** Every due held removal of the user's, put in place: answers the device keys removed. */
export async function removeDueDevices(
  app: App,
  origin: RequestOrigin | undefined,
  user: { company_id: string; user_id: string },
  changes: PendingChange[],
): Promise<string[]> {
  const removed: string[] = [];
  for (const change of dueRemovals(changes, epochSeconds(app.clock))) {
    if (await putInPlace(app, origin, user.company_id, user.user_id, change)) removed.push(change.device_key);
  }
  return removed;
}

/** Whether this device's held removal was due and is now in place (the device is gone). */
export async function removeDueDevice(
  app: App,
  origin: RequestOrigin | undefined,
  user: { company_id: string; user_id: string },
  changes: PendingChange[],
  deviceKey: string,
): Promise<boolean> {
  const change = dueRemovals(changes, epochSeconds(app.clock)).find((due) => due.device_key === deviceKey);
  return change !== undefined && (await putInPlace(app, origin, user.company_id, user.user_id, change));
}
