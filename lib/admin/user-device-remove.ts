import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { deviceRemoval, removeDevice } from '../devices/device-binding.js';
import { isSettled } from '../devices/device-settlement.js';
import { AppError } from '../errors.js';
import { staffFreezeWrites } from '../pending-changes/staff-freeze.js';
import { accountBusy } from '../sessions/end-sessions.js';
import { auditStaffAction } from '../staff/staff-actions.js';
import { ConditionsFailed } from '../store/transactions.js';
import { beginActionOnUser } from './action-target.js';
import type { UserDeviceRemoveCall } from './user-device-remove-input.js';
import type { UserDeviceRemoveResult } from './user-device-remove-result.js';

// POST /wallet/v3/admin/users/devices/remove (API contract 3.14): support removes a device of a
// user (a phone lost or stolen) as the user's own devices/remove does (3.6): the binding, every
// session bound to it, in one transaction with the record of the action and notice 8. A device
// that is not that user's: 404 code 6, and nothing is recorded. A settled device's removal also
// ends the user's SMS-strength changes and freezes new held ones for 72 h (staff-freeze.ts, 3.15).

const MAX_ROUNDS = 3;

export async function userDeviceRemove(app: App, call: UserDeviceRemoveCall): Promise<UserDeviceRemoveResult> {
  const { companyId, userId, user, record, recorded } = await beginActionOnUser(app, call, 'device_remove');
  for (let round = 1; ; round++) {
    const removal = await deviceRemoval(app, companyId, userId, call.body.device_key);
    if (!removal) throw new AppError('NOT_FOUND', { detail: 'no such device of this user' });
    const settled = isSettled(app.config, removal.device, user.user_type, epochSeconds(app.clock));
    const freeze = settled ? await staffFreezeWrites(app, companyId, userId, 'freeze') : [];
    try {
      const revoked = await removeDevice(app, companyId, userId, call.body.device_key, [...freeze, ...recorded], removal);
      auditStaffAction(app, call.origin, record, 'removed');
      return { message: 'Device removed', revoked };
    } catch (error) {
      // A change of the user's ended or replaced meanwhile: read them again.
      if (!(error instanceof ConditionsFailed && error.labels.includes('freeze'))) throw error;
      if (round >= MAX_ROUNDS) throw accountBusy();
    }
  }
}
