import type { App } from '../app-context.js';
import { hashPin, pinHashIsStale, pinHashVersion, verifyPin } from '../secrets/hashing.js';
import { type PinType, replacePinHash, scanPinHashes } from '../store/pin-store.js';

// The login PIN and the transaction PIN share one mechanism; they differ only in pinType.
// A rotation of the server secret protects a PIN only once its hash is made under the new
// version: every right check does that for a hash of an older version (docs/operations.md).

export type { PinType };

export interface PinCheck {
  companyId: string;
  userId: string;
  pinType: PinType;
  pin: string;
  /** That PIN's hash as read with the user. */
  storedHash: string;
  /** The attempt's id (attemptIdOf) when counted: a request retried with its Idempotency-Key takes no second try. */
  attemptId?: string;
  /** The tally it counts on (store/pin-store.ts PinTally): a device_key, "sms", or none. */
  tally?: string | undefined;
  /** Whether it also counts on the user's daily cap of this PIN (contract 3.15). */
  daily?: boolean;
}

/**
 * Whether the PIN matches its stored hash. A right PIN whose hash names an older key version
 * (or the scheme before versions) is hashed again under the current one, replacing the stored
 * hash only while it is still the one checked, so a change made meanwhile stands.
 */
export async function pinMatches(app: App, check: PinCheck): Promise<boolean> {
  if (!(await verifyPin(app.keys, check.pin, check.storedHash))) return false;
  const { version } = await app.keys.current('pin-pepper');
  if (pinHashIsStale(check.storedHash, version, app.hashCost.pin)) await rehashPin(app, check);
  return true;
}

async function rehashPin(app: App, check: PinCheck): Promise<void> {
  const { companyId, userId, pinType } = check;
  try {
    const to = await hashPin(app.keys, check.pin, app.hashCost.pin);
    await replacePinHash(app.table, { companyId, userId, pinType, from: check.storedHash, to });
  } catch (error) {
    // The check stands (the PIN was right); the next right check tries again.
    app.logger.warn('PIN rehash failed', { company_id: companyId, user_id: userId, pin_type: pinType, error: error as Error });
  }
}

/** How many PIN hashes (login and transaction) name each key version, against the versions that verify. */
interface PinHashVersions {
  /** Key version -> hashes naming it; the scheme before versions counts as version 1. */
  pin_hashes: Record<string, number>;
  current_version: number;
  /** Hashes of versions below this no longer verify (SECRET_VERSIONS_KEPT): their users must reset the PIN. */
  oldest_kept: number;
  /** The oldest version any hash names; null when there is no hash. */
  oldest_in_use: number | null;
}

/** Counts PIN hashes by key version, in one company or the whole table (a Scan: operator commands only). */
export async function countPinHashVersions(app: App, companyId?: string): Promise<PinHashVersions> {
  const counts = new Map<number, number>();
  for await (const users of scanPinHashes(app.table, companyId)) {
    for (const hashes of users) {
      for (const hash of [hashes.login, hashes.transaction]) {
        const version = hash === undefined ? undefined : pinHashVersion(hash);
        if (version !== undefined) counts.set(version, (counts.get(version) ?? 0) + 1);
      }
    }
  }
  const { version: current } = await app.keys.current('pin-pepper');
  const sorted = [...counts].sort(([a], [b]) => a - b);
  return {
    pin_hashes: Object.fromEntries(sorted.map(([version, count]) => [String(version), count])),
    current_version: current,
    oldest_kept: app.keys.oldestKept(current),
    oldest_in_use: sorted[0]?.[0] ?? null,
  };
}
