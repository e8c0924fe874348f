import { randomInt } from 'node:crypto';
import type { Clock, Timer } from '../clock.js';
import { epochSeconds } from '../clock.js';
import type { Config, SendingPool } from '../config.js';
import { audit, phoneRef } from '../observability/audit.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ServerKeys } from '../secrets/server-keys.js';
import { openQueuedText } from './queued-text.js';
import { poolFor, SendPacer } from './send-pacer.js';
import { smsSize } from './sms-segments.js';
import type { SendText } from './sms-sender.js';

// The queue's consumer (contract 3.2, docs/scaling.md): each text of a batch opened, decoys and
// dead codes dropped, the rest sent in their pool's and country's pace, SNS's throttling retried
// with backoff. What cannot be sent in this invocation's time goes back to the queue (a batch item
// failure) and comes again; one that keeps failing ends in the dead-letter queue and its alarm.

/** One message of an SQS batch. */
export interface QueuedRecord {
  messageId: string;
  body: string;
}

export interface DeliveryParts {
  keys: ServerKeys;
  clock: Clock;
  timer: Timer;
  logger: Logger;
  metrics: Metrics;
  /** Publishes one text (SNS, or the local outbox). */
  sms: SendText;
  pacer: SendPacer;
  pools: SendingPool[];
}

/** Backoff after SNS throttles: full jitter between 0 and base * 2^attempt, capped. */
const THROTTLE_BACKOFF_BASE_MS = 200;
const THROTTLE_BACKOFF_CAP_MS = 5000;
/** Time kept for one publish: a slot later than the deadline less this is left to the next invocation. */
const PUBLISH_BUDGET_MS = 2500;

/** SNS's answers that mean "too fast": wait and send again. */
function isThrottling(error: unknown): boolean {
  const name = (error as { name?: string })?.name ?? '';
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return /Throttl/i.test(name) || status === 429;
}

/** A refusal about the message itself (an invalid or opted-out number): sending again changes nothing. */
function isPermanent(error: unknown): boolean {
  const fault = (error as { $fault?: string })?.$fault;
  return fault === 'client' && !isThrottling(error);
}

/** The consumer's parts: one pacer per container, so its share of each rate holds across batches. */
export function deliveryParts(app: Omit<DeliveryParts, 'pacer' | 'pools'> & { config: Pick<Config, 'sms'> }): DeliveryParts {
  const { pacing } = app.config.sms;
  return { ...app, pacer: new SendPacer(pacing), pools: pacing.pools };
}

/** Delivers a batch; answers the ids of the messages to come again. */
export async function deliverQueuedTexts(parts: DeliveryParts, records: QueuedRecord[], deadlineMs: number): Promise<string[]> {
  const outcomes = await Promise.all(records.map((record) => deliverOne(parts, record, deadlineMs)));
  return records.filter((_, index) => outcomes[index] === 'again').map((record) => record.messageId);
}

type Outcome = 'done' | 'again';

async function deliverOne(parts: DeliveryParts, record: QueuedRecord, deadlineMs: number): Promise<Outcome> {
  const { keys, clock, timer, logger, pacer, sms } = parts;
  const text = await openQueuedText(keys, record.body).catch((error: unknown) => {
    // The secret could not be read now (SSM throttled or down): the message comes again.
    logger.warn('queued text not opened: the secret is unavailable', { message_id: record.messageId, error: error as Error });
    return 'unavailable' as const;
  });
  if (text === 'unavailable') return 'again';
  if (!text) {
    // Tampered with, or sealed under a secret version no longer kept: it can never be sent.
    logger.error('queued text does not open; dropped', { message_id: record.messageId });
    return 'done';
  }
  if (text.kind === 'decoy') return 'done';
  const event = { company_id: text.companyId, phone_ref: await phoneRef(keys, text.phoneNumber), country: text.country };
  if (epochSeconds(clock) >= text.expiresAt) {
    audit(parts, undefined, 'code_sent', { ...event, outcome: 'expired_in_queue' });
    return 'done';
  }
  const size = smsSize(text.text).segments;
  const pool = poolFor(parts.pools, text.country);
  for (let attempt = 0; ; attempt++) {
    const start = pacer.reserve(text.country, size, timer.now(), deadlineMs - PUBLISH_BUDGET_MS);
    if (start === undefined) return 'again';
    const wait = start - timer.now();
    if (wait > 0) await timer.sleep(wait);
    try {
      await sms({ phoneNumber: text.phoneNumber, text: text.text, originationNumber: pool?.originationNumber });
      audit(parts, undefined, 'code_sent', { ...event, outcome: 'sent', attempts: attempt + 1 });
      return 'done';
    } catch (error) {
      if (isThrottling(error)) {
        const backoff = randomInt(Math.min(THROTTLE_BACKOFF_CAP_MS, THROTTLE_BACKOFF_BASE_MS * 2 ** attempt) + 1);
        pacer.throttled(text.country, timer.now() + backoff);
        logger.warn('SNS throttled a send; paced again', { ...event, backoff_ms: backoff });
        continue;
      }
      const permanent = isPermanent(error);
      audit(parts, undefined, 'code_sent', { ...event, outcome: 'failed', error: (error as Error).name, retried: !permanent });
      return permanent ? 'done' : 'again';
    }
  }
}
