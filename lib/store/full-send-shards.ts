import { HOUR_SECONDS as HOUR } from '../clock.js';

// The company send-counter shards one container found full (lib/otp/send-limits.ts): memory of a
// container, not of the table, kept here so the app's parts can name it without importing a capability.

/** How long a container skips a shard it found full: a give-back may reopen it, which this bounds. */
const FULL_SHARD_MEMORY_SECONDS = 60;

/**
 * The company hour shards this container found full, skipped for a minute so a refused send
 * does not knock on every shard again: at the ceiling, a refusal costs no write most of the time.
 */
export class FullSendShards {
  private readonly full = new Map<string, number>();

  isFull(companyId: string, hour: number, shard: number, now: number): boolean {
    const key = `${companyId}#${hour}#${shard}`;
    const until = this.full.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.full.delete(key);
    return false;
  }

  remember(companyId: string, hour: number, shard: number, now: number): void {
    // Past hours' entries go: the map holds at most the shards of the companies seen this hour.
    for (const [key, until] of this.full) if (until <= now) this.full.delete(key);
    this.full.set(`${companyId}#${hour}#${shard}`, Math.min(now + FULL_SHARD_MEMORY_SECONDS, (hour + 1) * HOUR));
  }

  forget(companyId: string, hour: number, shard: number): void {
    this.full.delete(`${companyId}#${hour}#${shard}`);
  }
}
