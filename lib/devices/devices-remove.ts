import type { App } from '../app-context.js';
import { audit } from '../observability/audit.js';
import { removeDevice } from './device-binding.js';
import type { DevicesRemoveCall } from './devices-remove-input.js';
import type { DevicesRemoveResult } from './devices-remove-result.js';

/**
 * Removes one of the token user's devices (API contract 3.6), with every session bound to it
 * (device-binding.ts removeDevice). A device that is not the user's (another user's, another
 * company's, already removed): 404.
 */
export async function devicesRemove(app: App, { body: input, principal, origin }: DevicesRemoveCall): Promise<DevicesRemoveResult> {
  const { companyId, userId } = principal;
  const revoked = await removeDevice(app, companyId, userId, input.device_key);
  audit(app, origin, 'device_removed', { company_id: companyId, user_id: userId, outcome: 'removed', revoked });
  return { message: 'Device removed', revoked };
}
