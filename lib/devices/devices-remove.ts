import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { sessionIsLive } from '../sessions/access-tokens.js';
import { deviceCountChange } from '../store/device-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { deviceRemoval } from './device-binding.js';
import type { DevicesRemoveCall } from './devices-remove-input.js';
import type { DevicesRemoveResult } from './devices-remove-result.js';

/**
 * Removes one of the token user's devices (API contract 3.6): the binding, every session bound
 * to it and one off the user's device count, in one transaction; sessions a PIN login was granted
 * on it while the removal worked are ended right after (device-binding.ts deviceRemoval). A
 * device that is not the user's (another user's, another company's, already removed): 404.
 */
export async function devicesRemove(app: App, { body: input, principal, origin }: DevicesRemoveCall): Promise<DevicesRemoveResult> {
  const { companyId, userId } = principal;
  const removal = await deviceRemoval(app, companyId, userId, input.device_key);
  const gone = () => new AppError('NOT_FOUND', { detail: 'no such device of this user' });
  if (!removal) throw gone();
  try {
    await writeTransaction<string>(app.table, [
      ...removal.items,
      { label: 'user', item: deviceCountChange(app.table, companyId, userId, -1) },
    ]);
  } catch (error) {
    // Removed meanwhile by another removal or a binding's least-recently-used turn.
    if (error instanceof ConditionsFailed && error.labels.includes('device')) throw gone();
    throw error;
  }
  const late = await removal.endLateSessions();
  const now = epochSeconds(app.clock);
  const revoked =
    late +
    removal.sessions.filter(({ expiresAt, lastUsedAt }) => sessionIsLive(expiresAt, lastUsedAt, now, app.config.sessionIdleSeconds)).length;
  audit(app, origin, 'device_removed', { company_id: companyId, user_id: userId, outcome: 'removed', revoked });
  return { message: 'Device removed', revoked };
}
