import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import type { Config } from '../config.js';
import { queryDevicesAndChanges, type UserDeviceRecord } from '../store/device-store.js';
import { withKind } from '../store/pending-change-store.js';
import { UserType } from '../users/user-types.js';
import { removeDueDevices } from './device-removal-change.js';
import { isSettled, probationEndsAt } from './device-settlement.js';
import type { DevicesCall } from './devices-input.js';
import type { DevicesResult, ProbationDevice } from './devices-result.js';

type ListedDevice = Omit<DevicesResult['devices'][number], 'current'>;

type Standing = Pick<Config, 'credentialProbationHours'>;

/** When time settles a device on probation; null when settled, or when only an approval settles it. */
function probationEndOf(config: Standing, device: UserDeviceRecord, userType: number, now: number): number | null {
  if (isSettled(config, device, userType, now) || device.probation_held !== undefined || userType === UserType.EMPLOYEE) return null;
  return probationEndsAt(config, device) ?? null;
}

/** A bound device as the user's list shows it (the back office's view too): labels, dates and standing, never its public key. */
export function listedDeviceOf(config: Standing, device: UserDeviceRecord, userType: number, now: number): ListedDevice {
  return {
    device_key: device.device_key,
    device_type: device.device_type ?? null,
    device_id: device.device_id ?? null,
    device_unique_id: device.device_unique_id ?? null,
    created_date: device.created_at,
    last_used_date: device.last_used_at,
    settled: isSettled(config, device, userType, now) ? 1 : 0,
    probation_ends_at: probationEndOf(config, device, userType, now),
  };
}

/** The devices on probation, oldest first, as a login answer lists them. */
export function probationDevicesOf(config: Standing, devices: UserDeviceRecord[], userType: number, now: number): ProbationDevice[] {
  return devices
    .filter((device) => !isSettled(config, device, userType, now))
    .sort((a, b) => a.created_at - b.created_at)
    .map((device) => ({
      device_key: device.device_key,
      device_type: device.device_type ?? null,
      device_id: device.device_id ?? null,
      created_date: device.created_at,
      probation_ends_at: probationEndOf(config, device, userType, now),
    }));
}

/** A user's devices, most recently used first. */
export function byLastUse(devices: UserDeviceRecord[]): UserDeviceRecord[] {
  return [...devices].sort((a, b) => b.last_used_at - a.last_used_at);
}

/**
 * The token user's bound devices, most recently used first (API contract 3.6), each with its standing
 * (3.15): one Query of the user's partition reads the devices and the pending changes, and a held
 * removal that is due takes effect first.
 */
export async function devices(app: App, { principal, origin }: DevicesCall): Promise<DevicesResult> {
  const { companyId, userId } = principal;
  const held = await queryDevicesAndChanges(app.table, companyId, userId);
  const userType = principal.userType;
  const changes = held.changes.map((item) => withKind(item)!);
  const removed = await removeDueDevices(app, origin, { company_id: companyId, user_id: userId }, changes);
  const now = epochSeconds(app.clock);
  return {
    devices: byLastUse(held.devices.filter((device) => !removed.includes(device.device_key))).map((device) => ({
      ...listedDeviceOf(app.config, device, userType, now),
      current: device.device_key === principal.session?.deviceKey ? 1 : 0,
    })),
  };
}
