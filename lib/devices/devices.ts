import type { App } from '../app-context.js';
import { queryUserDevices, type UserDeviceRecord } from '../store/device-store.js';
import type { DevicesCall } from './devices-input.js';
import type { DevicesResult } from './devices-result.js';

type ListedDevice = Omit<DevicesResult['devices'][number], 'current'>;

/** A bound device as the user's list shows it (the back office's view too): labels and dates, never its public key. */
export function listedDeviceOf(device: UserDeviceRecord): ListedDevice {
  return {
    device_key: device.device_key,
    device_type: device.device_type ?? null,
    device_id: device.device_id ?? null,
    device_unique_id: device.device_unique_id ?? null,
    created_date: device.created_at,
    last_used_date: device.last_used_at,
  };
}

/** A user's devices, most recently used first. */
export function byLastUse(devices: UserDeviceRecord[]): UserDeviceRecord[] {
  return [...devices].sort((a, b) => b.last_used_at - a.last_used_at);
}

/** The token user's bound devices, most recently used first (API contract 3.6): one Query of the user's partition. */
export async function devices(app: App, { principal }: DevicesCall): Promise<DevicesResult> {
  const listed = await queryUserDevices(app.table, principal.companyId, principal.userId);
  return {
    devices: byLastUse(listed).map((device) => ({
      ...listedDeviceOf(device),
      current: device.device_key === principal.session?.deviceKey ? 1 : 0,
    })),
  };
}
