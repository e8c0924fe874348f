import { type EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Timer } from '../clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { EVENT_SOURCE, type WalletEvent } from './event-types.js';

// Puts the events of a batch of stream records on the bus (API contract 3.13): 10 entries a
// PutEvents call (its limit), the entries EventBridge refused put again with backoff (a throttled
// or partly failed call), and what still fails after its attempts sent to the dead-letter queue,
// whose alarm says so. Only when the queue cannot take them either does the batch fail from that
// record on: Lambda's event source then hands it again (at least once; the event ids repeat).

/** PutEvents takes at most 10 entries; SendMessageBatch at most 10 messages. */
const ENTRIES_PER_CALL = 10;
/** Calls made side by side: a batch of 100 records is at most a few rounds. */
const CALLS_AT_ONCE = 4;
const BASE_BACKOFF_MS = 100;

export interface Publisher {
  events: Pick<EventBridgeClient, 'send'>;
  deadLetters: Pick<SQSClient, 'send'>;
  busName: string;
  deadLetterQueueUrl: string | undefined;
  /** Puts of one entry, the first included, before it goes to the dead-letter queue. */
  maxAttempts: number;
  timer: Timer;
  logger: Logger;
  metrics: Pick<Metrics, 'add'>;
}

/** The events of one stream record, by its sequence number (what Lambda retries from). */
export interface RecordEvents {
  sequenceNumber: string;
  events: WalletEvent[];
}

interface Pending {
  record: number;
  entry: PutEventsRequestEntry;
  eventId: string;
  error?: string;
}

/** The entry on the bus for one event: its detail-type, its detail as JSON, its time. */
export function busEntry(busName: string, event: WalletEvent): PutEventsRequestEntry {
  return {
    EventBusName: busName,
    Source: EVENT_SOURCE,
    DetailType: event.type,
    Detail: JSON.stringify(event.detail),
    Time: new Date(event.detail.occurred_at),
  };
}

/**
 * Publishes the records' events by `deadlineMs` (timer time). Answers the sequence number of the
 * first record whose events are neither on the bus nor in the dead-letter queue (to be handed
 * again), or undefined when every one is in one or the other.
 */
export async function publishRecords(publisher: Publisher, records: RecordEvents[], deadlineMs: number): Promise<string | undefined> {
  let pending: Pending[] = records.flatMap(({ events }, record) =>
    events.map((event) => ({ record, entry: busEntry(publisher.busName, event), eventId: event.detail.event_id })),
  );
  if (!pending.length) return undefined;
  const total = pending.length;
  for (let attempt = 1; pending.length; attempt++) {
    if (attempt > 1) {
      publisher.metrics.add('events_put_again', pending.length);
      // Full jitter: throttled callers spread out instead of coming back together.
      const backoff = Math.random() * BASE_BACKOFF_MS * 2 ** (attempt - 1);
      if (publisher.timer.now() + backoff >= deadlineMs) break;
      await publisher.timer.sleep(backoff);
    }
    pending = await putOnce(publisher, pending);
    if (attempt >= publisher.maxAttempts) break;
  }
  publisher.metrics.add('events_published', total - pending.length);
  if (!pending.length) return undefined;
  const kept = await deadLetter(publisher, pending);
  const lost = pending.filter((item) => !kept.has(item));
  if (!lost.length) return undefined;
  const first = Math.min(...lost.map((item) => item.record));
  publisher.logger.error('events neither published nor dead-lettered; their records come again', {
    records_from: first,
    events: lost.length,
  });
  return records[first]!.sequenceNumber;
}

/** One put of every pending entry, 10 a call: answers the ones still refused, each with why. */
async function putOnce(publisher: Publisher, pending: Pending[]): Promise<Pending[]> {
  const calls: Pending[][] = [];
  for (let start = 0; start < pending.length; start += ENTRIES_PER_CALL) calls.push(pending.slice(start, start + ENTRIES_PER_CALL));
  const refused: Pending[] = [];
  for (let start = 0; start < calls.length; start += CALLS_AT_ONCE) {
    const rounds = await Promise.all(calls.slice(start, start + CALLS_AT_ONCE).map((call) => putCall(publisher, call)));
    refused.push(...rounds.flat());
  }
  return refused;
}

async function putCall(publisher: Publisher, call: Pending[]): Promise<Pending[]> {
  try {
    const answer = await publisher.events.send(new PutEventsCommand({ Entries: call.map(({ entry }) => entry) }));
    if (!answer.FailedEntryCount) return [];
    // Results come in the entries' order; a failed one has an ErrorCode.
    return call.flatMap((item, index) => {
      const result = answer.Entries?.[index];
      return result?.ErrorCode || !result?.EventId ? [{ ...item, error: result?.ErrorCode ?? 'NoEventId' }] : [];
    });
  } catch (error) {
    // The SDK's own attempts are spent (throttled, unreachable): every entry of the call is refused.
    const name = (error as Error).name || 'Error';
    publisher.logger.warn('PutEvents failed', { error: name, entries: call.length });
    return call.map((item) => ({ ...item, error: name }));
  }
}

/** Sends entries to the dead-letter queue, 10 a call; answers the ones it took. */
async function deadLetter(publisher: Publisher, failed: Pending[]): Promise<Set<Pending>> {
  const kept = new Set<Pending>();
  if (!publisher.deadLetterQueueUrl) return kept;
  for (let start = 0; start < failed.length; start += ENTRIES_PER_CALL) {
    const call = failed.slice(start, start + ENTRIES_PER_CALL);
    try {
      const answer = await publisher.deadLetters.send(
        new SendMessageBatchCommand({
          QueueUrl: publisher.deadLetterQueueUrl,
          Entries: call.map((item, index) => ({
            Id: String(index),
            // The entry as it would have been put, so it can be put again as it is (docs/operations.md).
            MessageBody: JSON.stringify({
              event_id: item.eventId,
              error: item.error,
              entry: { ...item.entry, Time: item.entry.Time?.toISOString() },
            }),
          })),
        }),
      );
      for (const success of answer.Successful ?? []) kept.add(call[Number(success.Id)]!);
    } catch (error) {
      publisher.logger.error('the events dead-letter queue refused', { error: (error as Error).name, entries: call.length });
    }
  }
  publisher.metrics.add('events_dead_lettered', kept.size);
  if (kept.size) {
    publisher.logger.error('events could not be put on the bus and wait in the dead-letter queue', {
      events: kept.size,
      errors: [...new Set([...kept].map((item) => item.error))],
    });
  }
  return kept;
}
