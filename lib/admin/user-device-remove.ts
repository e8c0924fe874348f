import type { App } from '../app-context.js';
import { removeDevice } from '../devices/device-binding.js';
import { auditStaffAction } from '../staff/staff-actions.js';
import { beginActionOnUser } from './action-target.js';
import type { UserDeviceRemoveCall } from './user-device-remove-input.js';
import type { UserDeviceRemoveResult } from './user-device-remove-result.js';

// POST /wallet/v3/admin/users/devices/remove (API contract 3.14): support removes a device of a
// user (a phone lost or stolen) as the user's own devices/remove does (3.6): the binding, every
// session bound to it, in one transaction with the record of the action and notice 8. A device
// that is not that user's: 404 code 6, and nothing is recorded.

export async function userDeviceRemove(app: App, call: UserDeviceRemoveCall): Promise<UserDeviceRemoveResult> {
  const { companyId, userId, record, recorded } = await beginActionOnUser(app, call, 'device_remove');
  const revoked = await removeDevice(app, companyId, userId, call.body.device_key, recorded);
  auditStaffAction(app, call.origin, record, 'removed');
  return { message: 'Device removed', revoked };
}
