import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type AwsConfig, awsClient } from '../aws/clients.js';
import type { Timer } from '../clock.js';
import type { Logger } from '../observability/logger.js';
import type { ServerKeys } from '../secrets/server-keys.js';
import type { QueuedRecord } from './queued-sms-delivery.js';
import { type QueuedText, sealQueuedText } from './queued-text.js';
import type { CodeText, TextDispatch } from './text-dispatch.js';

// Texts through a queue (docs/scaling.md): a send answers once its code is stored and its text
// queued, and the queue's consumer (functions/sms-send.ts) sends at the pace the sending numbers
// take. The queue is SQS when deployed (and a loopback SQS for `SMS_DELIVERY=queue npm start`), or
// one in the process for a service built in a process, behind one interface.

export interface SmsQueue {
  /** Queues one sealed body; answers once the queue holds it. */
  enqueue(body: string): Promise<void>;
}

/**
 * A code's text queued sealed; a withheld code (no account) queues a sealed decoy of the same size
 * instead, which the consumer drops: both answers wait for the same one SendMessage.
 */
export function queuedDispatch(keys: ServerKeys, queue: SmsQueue): TextDispatch {
  const enqueue = async (kind: QueuedText['kind'], code: CodeText) => queue.enqueue(await sealQueuedText(keys, { kind, ...code }));
  return {
    send: (code) => enqueue('text', code),
    withhold: (code) => enqueue('decoy', code),
  };
}

/** Delivers a batch by the deadline (timer time); answers the ids to come again. */
export type DeliverBatch = (records: QueuedRecord[], deadlineMs: number) => Promise<string[]>;

interface InProcessOptions {
  timer: Timer;
  logger: Logger;
  /** As the deployed event source: messages per batch, time per batch, batches at once, delay before a failed one comes again, receives before the dead letters. */
  batchSize?: number;
  batchMs?: number;
  concurrency?: number;
  visibilityMs?: number;
  maxReceives?: number;
}

/**
 * A queue in this process, for local stages: drained a batch at a time by at most `concurrency`
 * consumers at once, a failed message back after its visibility delay, and one that fails
 * maxReceives times set aside as a dead letter (logged). Lost when the process ends.
 */
export class InProcessQueue implements SmsQueue {
  private readonly waiting: (QueuedRecord & { receives: number })[] = [];
  private consumers = 0;
  private readonly held = new Set<NodeJS.Timeout>();
  readonly deadLetters: QueuedRecord[] = [];

  constructor(
    private readonly deliver: DeliverBatch,
    private readonly options: InProcessOptions,
  ) {}

  async enqueue(body: string): Promise<void> {
    this.waiting.push({ messageId: randomUUID(), body, receives: 0 });
    this.startConsumers();
  }

  /** Resolves once nothing is waiting, being delivered or held for a retry. */
  async idle(): Promise<void> {
    while (this.consumers || this.held.size || this.waiting.length) await this.options.timer.sleep(20);
  }

  private startConsumers(): void {
    const { concurrency = 1 } = this.options;
    while (this.consumers < concurrency && this.consumers < this.waiting.length) {
      this.consumers++;
      void this.consume().finally(() => {
        this.consumers--;
      });
    }
  }

  private async consume(): Promise<void> {
    const { timer, logger, batchSize = 10, batchMs = 30_000, visibilityMs = 1000, maxReceives = 5 } = this.options;
    // Let the request that queued answer first, as it would with SQS between them.
    await timer.sleep(0);
    while (this.waiting.length) {
      const batch = this.waiting.splice(0, batchSize);
      for (const record of batch) record.receives++;
      let again: string[];
      try {
        again = await this.deliver(batch, timer.now() + batchMs);
      } catch (error) {
        logger.error('queued texts failed', { error: error as Error });
        again = batch.map((record) => record.messageId);
      }
      for (const record of batch.filter((item) => again.includes(item.messageId))) this.retryLater(record, visibilityMs, maxReceives);
    }
  }

  private retryLater(record: QueuedRecord & { receives: number }, visibilityMs: number, maxReceives: number): void {
    if (record.receives >= maxReceives) {
      this.options.logger.error('queued text set aside as a dead letter', { message_id: record.messageId });
      this.deadLetters.push(record);
      return;
    }
    const retry = setTimeout(() => {
      this.held.delete(retry);
      this.waiting.push(record);
      this.startConsumers();
    }, visibilityMs);
    retry.unref();
    this.held.add(retry);
  }
}

/** SQS: one SendMessage per text; the client is built on the first. */
export function sqsQueue(config: AwsConfig, queueUrl: string): SmsQueue {
  let client: SQSClient | undefined;
  return {
    async enqueue(body) {
      client ??= awsClient(SQSClient, config, 'sqs');
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    },
  };
}
