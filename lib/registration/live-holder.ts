import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { isSettled } from '../devices/device-settlement.js';
import { queryUserDevices } from '../store/device-store.js';
import { queryPasskeys } from '../store/passkey-store.js';
import type { UserRecord } from '../store/user-store.js';

// Reclaim never takes a live account (API contract 3.15, second reading): a holder of a number who
// uses it, on a settled device, within the last 90 days is its owner in practice, proven or not; a
// SIM swapper who registers or changes to the number with its codes must not displace them.

/** How recent a settled device's use keeps its holder live. */
export const LIVE_HOLDER_DAYS = 90;

/**
 * Whether the holder of a number is live: a settled device of theirs was used (bound, or a PIN login
 * on it), or a passkey of theirs (registered, or a login with it), in the last LIVE_HOLDER_DAYS.
 * The one rule every reclaim asks (phone-reclaim.ts).
 */
export async function holderIsLive(app: Pick<App, 'table' | 'clock' | 'config'>, holder: UserRecord): Promise<boolean> {
  const now = epochSeconds(app.clock);
  const since = now - LIVE_HOLDER_DAYS * 24 * 3600;
  const [devices, passkeys] = await Promise.all([
    queryUserDevices(app.table, holder.company_id, holder.user_id),
    queryPasskeys(app.table, holder.company_id, holder.user_id),
  ]);
  return (
    devices.some((device) => device.last_used_at > since && isSettled(app.config, device, holder.user_type, now)) ||
    passkeys.some((passkey) => (passkey.last_used_at ?? passkey.created_at) > since)
  );
}
