import type { App } from '../app.js';
import { epochSeconds, HOUR_SECONDS as HOUR } from '../clock.js';
import { AppError } from '../errors.js';
import {
  countCompanySend,
  countSendInNewWindow,
  countSendInWindow,
  type PhoneSendResult,
  uncountCompanySend,
  uncountPhoneSend,
} from '../store/send-limit-store.js';

// Limits on sending codes (API contract 3.2): per phone, one send per interval and a few per
// hour; per company, an hourly ceiling against SMS pumping. Enforced by conditional updates.

type LimitParts = Pick<App, 'table' | 'clock' | 'config'>;

/** A counted send; release() gives it back when the SMS could not be sent. */
export interface SendReservation {
  release(): Promise<void>;
}

export function tooManyRequests(retryAfterSeconds: number, detail = 'send limit reached'): AppError {
  return new AppError('TOO_MANY_REQUESTS', { detail, headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
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
    if (seen && seen.last_sent_at > now - interval) throw tooManyRequests(seen.last_sent_at + interval - now);
    if (seen && seen.window_start > now - HOUR) {
      if (seen.window_count >= perHour) throw tooManyRequests(seen.window_start + HOUR - now);
      result = await countSendInWindow(table, companyId, phone, seen.window_start, now, interval, perHour);
    } else {
      result = await countSendInNewWindow(table, companyId, phone, now, interval);
    }
  }
  if (!result.counted) throw tooManyRequests(interval);
  return result;
}

export async function reserveSend(app: LimitParts, companyId: string, phone: string): Promise<SendReservation> {
  const { table, config } = app;
  const now = epochSeconds(app.clock);
  const phoneSend = await countPhoneSend(app, companyId, phone, now);
  const hour = Math.floor(now / HOUR);
  const releasePhone = () => uncountPhoneSend(table, companyId, phone, now, phoneSend.before);
  let companyCounted: boolean;
  try {
    companyCounted = await countCompanySend(table, companyId, hour, config.otp.sendsPerCompanyPerHour);
  } catch (error) {
    // The send will not happen, so the phone must not keep its count (best effort: the table is failing).
    await releasePhone().catch(() => undefined);
    throw error;
  }
  if (!companyCounted) {
    await releasePhone();
    throw tooManyRequests((hour + 1) * HOUR - now);
  }
  return {
    release: async () => {
      await Promise.all([releasePhone(), uncountCompanySend(table, companyId, hour)]);
    },
  };
}
