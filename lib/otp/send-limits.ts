import type { App } from '../app.js';
import { epochSeconds, HOUR_SECONDS as HOUR } from '../clock.js';
import { AppError } from '../errors.js';
import type { LimitName } from '../observability/metrics.js';
import { addressLimitKey, companySendLimitKey, type ItemKey, prefixSendLimitKey } from '../store/keys.js';
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
// per number range against SMS pumping runs through consecutive numbers.

type LimitParts = Pick<App, 'table' | 'clock' | 'config'>;

/** A counted send; release() gives it back when the SMS could not be sent. */
export interface SendReservation {
  release(): Promise<void>;
}

export function tooManyRequests(retryAfterSeconds: number, limit: LimitName, detail = 'send limit reached'): AppError {
  return new AppError('TOO_MANY_REQUESTS', {
    detail,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    event: { event: 'limited', limit },
  });
}

/** When a phone locked by wrong codes opens again (epoch seconds), or undefined when it is not locked. */
export async function phoneLockedUntil(
  { table, config }: LimitParts,
  companyId: string,
  phone: string,
  now: number,
): Promise<number | undefined> {
  const { failuresPerPhone, failureWindowSeconds } = config.otp;
  const failures = await getPhoneFailures(table, companyId, phone);
  const open = failures && failures.window_start > now - failureWindowSeconds;
  return open && failures.failures >= failuresPerPhone ? failures.window_start + failureWindowSeconds : undefined;
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
export async function checkSender(app: LimitParts, companyId: string, phone: string, sourceIp: string): Promise<void> {
  const now = epochSeconds(app.clock);
  const [, lockedUntil] = await Promise.all([
    countAddress(app, sourceIp, 'SENDS', app.config.otp.sendsPerAddressPerHour, HOUR, now),
    phoneLockedUntil(app, companyId, phone, now),
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
 * Counts a send against the phone, then against the company's hour and the number range's hour
 * side by side; any refusal gives back what was counted. `range` is the destination's number
 * range (sms-destinations.ts numberRange).
 */
export async function reserveSend(app: LimitParts, companyId: string, phone: string, range: string): Promise<SendReservation> {
  const { table, config } = app;
  const now = epochSeconds(app.clock);
  const phoneSend = await countPhoneSend(app, companyId, phone, now);
  const hour = Math.floor(now / HOUR);
  const expires = (hour + 2) * HOUR;
  const hourly: { key: ItemKey; ceiling: number; limit: LimitName }[] = [
    { key: companySendLimitKey(companyId, hour), ceiling: config.otp.sendsPerCompanyPerHour, limit: 'company_hourly' },
    ...(config.otp.sendsPerPrefixPerHour > 0
      ? [{ key: prefixSendLimitKey(companyId, range, hour), ceiling: config.otp.sendsPerPrefixPerHour, limit: 'number_range' as const }]
      : []),
  ];
  const releasePhone = () => uncountPhoneSend(table, companyId, phone, now, phoneSend.before);
  const outcomes = await Promise.allSettled(hourly.map(({ key, ceiling }) => countInWindow(table, key, 'sent', ceiling, expires)));
  const counted = hourly.filter((_, index) => outcomes[index]?.status === 'fulfilled' && outcomes[index].value === true);
  const release = async () => {
    await Promise.all([releasePhone(), ...counted.map(({ key }) => uncountInWindow(table, key, 'sent'))]);
  };
  if (counted.length < hourly.length) {
    // The send will not happen: give back what was counted (best effort when the table is failing).
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    await release().catch(() => undefined);
    if (failure) throw failure.reason;
    const refusedBy = hourly.find((entry) => !counted.includes(entry))!;
    throw tooManyRequests((hour + 1) * HOUR - now, refusedBy.limit);
  }
  return { release };
}
