import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { holdChange } from '../pending-changes/held-change.js';
import { isStrong, requireFreshStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { deviceRemoval, removeDevice } from './device-binding.js';
import { isSettled } from './device-settlement.js';
import type { DevicesRemoveCall } from './devices-remove-input.js';
import type { DevicesRemoveResult } from './devices-remove-result.js';

/**
 * Removes one of the token user's devices (API contract 3.6 and 3.15), with every session bound to
 * it (device-binding.ts removeDevice). A device on probation goes at once from any session. A
 * settled device goes at once from a strong session proven under STEP_UP_MAX_AGE_SECONDS ago; from
 * an SMS-strength session its removal waits PHONE_CHANGE_HOLD_HOURS (a SIM swapper must not push
 * the owner's own phone out), cancellable from any session. A device that is not the user's
 * (another user's, another company's, already removed): 404.
 */
export async function devicesRemove(app: App, call: DevicesRemoveCall & RequestKey, texts: TextDispatch): Promise<DevicesRemoveResult> {
  const { body: input, principal, origin } = call;
  const { companyId, userId } = principal;
  // The device and its sessions, read side by side: what a removal at once needs, and whether the device is settled.
  // An SMS-strength session's removal of a settled device waits, told to the user's number: the user beside.
  const strong = isStrong(principal);
  const [removal, user] = await Promise.all([
    deviceRemoval(app, companyId, userId, input.device_key),
    strong ? undefined : getUser(app.table, companyId, userId, true),
  ]);
  if (!removal) throw new AppError('NOT_FOUND', { detail: 'no such device of this user' });
  if (isSettled(app.config, removal.device, principal.userType, epochSeconds(app.clock))) {
    if (!strong) {
      if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
      const held = await holdChange(app, call, texts, {
        kind: 'device_remove',
        details: { device_key: input.device_key },
        warnPhoneE164: user.phone_e164,
        message: 'Device removal pending',
      });
      audit(app, origin, 'device_removed', { company_id: companyId, user_id: userId, outcome: 'held', change_id: held.change_id });
      return held;
    }
    requireFreshStrong(app, principal, 'removing a settled device');
  }
  const revoked = await removeDevice(app, companyId, userId, input.device_key, [], removal);
  audit(app, origin, 'device_removed', { company_id: companyId, user_id: userId, outcome: 'removed', revoked });
  return { message: 'Device removed', revoked };
}
