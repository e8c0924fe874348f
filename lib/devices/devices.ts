import type { App } from '../app-context.js';
import { queryUserDevices } from '../store/device-store.js';
import type { DevicesCall } from './devices-input.js';
import type { DevicesResult } from './devices-result.js';

/** The token user's bound devices, most recently used first (API contract 3.6): one Query of the user's partition. */
export async function devices(app: App, { principal }: DevicesCall): Promise<DevicesResult> {
  const listed = await queryUserDevices(app.table, principal.companyId, principal.userId);
  return {
    devices: listed
      .sort((a, b) => b.last_used_at - a.last_used_at)
      .map((device) => ({
        device_key: device.device_key,
        device_type: device.device_type ?? null,
        device_id: device.device_id ?? null,
        device_unique_id: device.device_unique_id ?? null,
        created_date: device.created_at,
        last_used_date: device.last_used_at,
        current: device.device_key === principal.session?.deviceKey ? 1 : 0,
      })),
  };
}
