import { randomInt } from 'node:crypto';
import type { App } from '../app-context.js';
import { epochSeconds, HOUR_SECONDS as HOUR } from '../clock.js';
import type { Company } from '../companies/companies.js';
import { companyLimits } from '../companies/company-limits.js';
import { AppError } from '../errors.js';
import type { LimitName } from '../observability/metrics.js';
import { addressLimitKey, companySendLimitKey, prefixSendLimitKey } from '../store/keys.js';
import {
  countInWindow,
  countSendInNewWindow,
  countSendInWindow,
  getPhoneFailures,
  type PhoneSendResult,
  uncountInWindow,
  uncountPhoneSend,
} from '../store/send-limit-store.js';
import { addressKeyOf } from './source-address.js';

// Limits on sending codes (API contract 3.2, 3.3 and 6), each enforced by a conditional update so
// no race passes it: per source address, sends an hour; per phone, one send per interval, a few
// an hour, and none while too many wrong codes lock it; per company, an hourly ceiling, and one
// per number range against SMS pumping runs through consecutive numbers. The company's hour is
// counted in shards (companySendLimitKey), so its sends spread over items and partitions.

type LimitParts = Pick<App, 'table' | 'clock' | 'config' | 'fullSendShards'>;

/** Shard `index`'s share of a ceiling split over `shards`: the shares add up to the ceiling exactly. */
export function shardCeiling(ceiling: number, shards: number, index: number): number {
  return Math.floor(ceiling / shards) + (index < ceiling % shards ? 1 : 0);
}

/** Shards in a random order: the first takes the send, the rest are where a refusal falls over to. */
function shardOrder(shards: number): number[] {
  const order = Array.from({ length: shards }, (_, index) => index);
  for (let index = shards - 1; index > 0; index--) {
    const other = randomInt(index + 1);
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return order;
}

/**
 * Counts one send in the company's hour: in a random shard, falling over to the next when one is
 * full, so the total never passes the ceiling (each shard holds its share) and the sends left are
 * found wherever they are. The shard that counted it, or undefined when every shard is full.
 */
async function countCompanySend(
  { table, config, fullSendShards }: LimitParts,
  companyId: string,
  ceiling: number,
  now: number,
): Promise<number | undefined> {
  const hour = Math.floor(now / HOUR);
  // A shard must hold at least one send: a ceiling below the shard count uses as many shards.
  const shards = Math.min(config.otp.companySendShards, ceiling);
  for (const shard of shardOrder(shards)) {
    if (fullSendShards.isFull(companyId, hour, shard, now)) continue;
    const key = companySendLimitKey(companyId, hour, shard);
    if (await countInWindow(table, key, 'sent', shardCeiling(ceiling, shards, shard), (hour + 2) * HOUR)) return shard;
    fullSendShards.remember(companyId, hour, shard, now);
  }
  return undefined;
}

/** A counted send; release() gives it back when the SMS could not be sent. */
interface SendReservation {
  release(): Promise<void>;
}

function tooManyRequests(retryAfterSeconds: number, limit: LimitName, detail = 'send limit reached'): AppError {
  return new AppError('TOO_MANY_REQUESTS', {
    detail,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    event: { event: 'limited', limit },
  });
}

/** When a phone locked by wrong codes opens again (epoch seconds), or undefined when it is not locked: what a send checks. */
async function phoneLockedUntil({ table, config }: LimitParts, companyId: string, phone: string, now: number): Promise<number | undefined> {
  const { failuresPerPhone, failureWindowSeconds } = config.otp;
  const failures = await getPhoneFailures(table, companyId, phone);
  const open = failures && failures.window_start > now - failureWindowSeconds;
  return open && (failures.tries?.size ?? 0) >= failuresPerPhone ? failures.window_start + failureWindowSeconds : undefined;
}

/**
 * Counts one request from a source address in a fixed window of `windowSeconds` (0 limit: off),
 * or refuses it with TOO_MANY_REQUESTS until the window ends.
 */
export async function countAddress(
  { table }: LimitParts,
  sourceIp: string,
  kind: 'SENDS' | 'VERIFIES',
  limit: number,
  windowSeconds: number,
  now: number,
): Promise<void> {
  const address = addressKeyOf(sourceIp);
  if (limit === 0 || !address) return;
  const window = Math.floor(now / windowSeconds);
  const counted = await countInWindow(table, addressLimitKey(address, kind, window), 'requests', limit, (window + 2) * windowSeconds);
  if (!counted) {
    const limitName = kind === 'SENDS' ? 'address_sends' : 'address_verifies';
    throw tooManyRequests((window + 1) * windowSeconds - now, limitName, `${kind.toLowerCase()} limit of the source address reached`);
  }
}

/**
 * What a send checks before its phone is counted, side by side with reading who holds the
 * phone: the source address's hourly sends, and whether wrong codes lock the phone.
 */
export async function checkSender(app: LimitParts, company: Company, phone: string, sourceIp: string): Promise<void> {
  const now = epochSeconds(app.clock);
  const [, lockedUntil] = await Promise.all([
    countAddress(app, sourceIp, 'SENDS', companyLimits(company, app.config).sendsPerAddressPerHour, HOUR, now),
    phoneLockedUntil(app, company.company_id, phone, now),
  ]);
  if (lockedUntil) throw tooManyRequests(lockedUntil - now, 'phone_lockout', 'too many wrong codes for this phone');
}

/** Counts one send to the phone, or refuses with TOO_MANY_REQUESTS and when to retry. */
async function countPhoneSend(
  { table, config }: LimitParts,
  companyId: string,
  phone: string,
  now: number,
): Promise<PhoneSendResult & { counted: true }> {
  const { sendIntervalSeconds: interval, sendsPerPhonePerHour: perHour } = config.otp;
  let result = await countSendInNewWindow(table, companyId, phone, now, interval);
  // Each refusal says why; at most a couple of rounds are needed even when sends race.
  for (let round = 0; !result.counted && round < 3; round++) {
    const seen = result.seen;
    if (seen && seen.last_sent_at > now - interval) throw tooManyRequests(seen.last_sent_at + interval - now, 'phone_interval');
    if (seen && seen.window_start > now - HOUR) {
      if (seen.window_count >= perHour) throw tooManyRequests(seen.window_start + HOUR - now, 'phone_hourly');
      result = await countSendInWindow(table, companyId, phone, seen.window_start, now, interval, perHour);
    } else {
      result = await countSendInNewWindow(table, companyId, phone, now, interval);
    }
  }
  if (!result.counted) throw tooManyRequests(interval, 'phone_interval');
  return result;
}

/**
 * Counts a send against the phone, then against the company's hour (a shard of it) and the
 * number range's hour side by side; any refusal gives back what was counted. `range` is the
 * destination's number range (lib/companies/sms-destinations.ts numberRange).
 */
export async function reserveSend(app: LimitParts, company: Company, phone: string, range: string): Promise<SendReservation> {
  const { table, fullSendShards } = app;
  const companyId = company.company_id;
  const limits = companyLimits(company, app.config);
  const now = epochSeconds(app.clock);
  const phoneSend = await countPhoneSend(app, companyId, phone, now);
  const hour = Math.floor(now / HOUR);
  const rangeKey = prefixSendLimitKey(companyId, range, hour);
  const [companyOutcome, rangeOutcome] = await Promise.allSettled([
    countCompanySend(app, companyId, limits.smsPerHour, now),
    limits.smsPerPrefixPerHour > 0 ? countInWindow(table, rangeKey, 'sent', limits.smsPerPrefixPerHour, (hour + 2) * HOUR) : true,
  ]);
  const shard = companyOutcome.status === 'fulfilled' ? companyOutcome.value : undefined;
  const rangeCounted = rangeOutcome.status === 'fulfilled' && rangeOutcome.value === true;
  const release = async () => {
    await Promise.all([
      uncountPhoneSend(table, companyId, phone, phoneSend.sendId, phoneSend.before),
      shard !== undefined &&
        uncountInWindow(table, companySendLimitKey(companyId, hour, shard), 'sent').then(() =>
          fullSendShards.forget(companyId, hour, shard),
        ),
      rangeCounted && limits.smsPerPrefixPerHour > 0 && uncountInWindow(table, rangeKey, 'sent'),
    ]);
  };
  if (shard === undefined || !rangeCounted) {
    // The send will not happen: give back what was counted (best effort when the table is failing).
    await release().catch(() => undefined);
    for (const outcome of [companyOutcome, rangeOutcome]) if (outcome.status === 'rejected') throw outcome.reason;
    throw tooManyRequests((hour + 1) * HOUR - now, shard === undefined ? 'company_hourly' : 'number_range');
  }
  return { release };
}
