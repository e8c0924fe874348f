import type { App } from '../app-context.js';
import { removeDevice } from '../devices/device-binding.js';
import { actionTarget } from './action-target.js';
import { auditStaffAction, staffActionOnUser } from './staff-actions.js';
import { requireStaff } from './staff-gate.js';
import type { UserDeviceRemoveCall } from './user-device-remove-input.js';
import type { UserDeviceRemoveResult } from './user-device-remove-result.js';

// POST /wallet/v3/admin/users/devices/remove (API contract 3.14): support removes a device of a
// user (a phone lost or stolen) as the user's own devices/remove does (3.6): the binding, every
// session bound to it, in one transaction with the record of the action and notice 8. A device
// that is not that user's: 404 code 6, and nothing is recorded.

export async function userDeviceRemove(app: App, call: UserDeviceRemoveCall): Promise<UserDeviceRemoveResult> {
  const { companyId } = call.principal;
  const staff = await requireStaff(app, call.principal, ['support', 'admin']);
  const userId = call.body.user_id;
  await actionTarget(app, staff, companyId, userId);
  const { record, writes } = staffActionOnUser(app, {
    companyId,
    actorId: staff.userId,
    action: 'device_remove',
    userId,
    reason: call.body.reason,
  });
  const revoked = await removeDevice(
    app,
    companyId,
    userId,
    call.body.device_key,
    writes.map((item) => ({ label: 'record', item })),
  );
  auditStaffAction(app, call.origin, record, 'removed');
  return { message: 'Device removed', revoked };
}
