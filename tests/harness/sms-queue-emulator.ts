import { systemTimer } from '../../lib/clock.js';
import type { Logger } from '../../lib/observability/logger.js';
import type { QueuedRecord } from '../../lib/sms/queued-sms-delivery.js';
import { InProcessQueue } from '../../lib/sms/sms-queue.js';
import { type FakeSqs, startFakeSqs } from './sqs-fake.js';

// The SMS queue on this machine, as AWS runs it (docs/scaling.md): login_phone queues with the real
// SQS client into a loopback SQS, and an event source here hands batches to the smsSend function
// through serverless-offline's Lambda API, at most `consumers` batches at once, a message back
// after its visibility delay when the function reports it failed, and after 5 tries a dead letter.
// For `SMS_DELIVERY=queue npm start` and the HTTP test of the queue's pacing.

export interface SmsQueueEmulator {
  sqs: FakeSqs;
  queue: InProcessQueue;
  /** The environment that points login_phone at this queue. */
  environment: Record<string, string>;
  /** serverless-offline's Lambda API, set once it is known. */
  lambdaUrl: string;
  close(): Promise<void>;
}

interface EmulatorOptions {
  /** The smsSend function's name as the Lambda API knows it: wallet-auth-<stage>-smsSend. */
  functionName: string;
  /** The event source's maximum concurrency (SMS_QUEUE_CONSUMERS). */
  consumers: number;
  logger: Logger;
  /** Milliseconds a failed message waits before it comes again. */
  visibilityMs?: number;
}

export async function startSmsQueueEmulator({
  functionName,
  consumers,
  logger,
  visibilityMs = 2000,
}: EmulatorOptions): Promise<SmsQueueEmulator> {
  const sqs = await startFakeSqs();
  const emulator: SmsQueueEmulator = {
    sqs,
    queue: undefined as unknown as InProcessQueue,
    environment: { SMS_DELIVERY: 'queue', SQS_ENDPOINT: sqs.endpoint, SMS_QUEUE_URL: sqs.queueUrl, SMS_QUEUE_CONSUMERS: String(consumers) },
    lambdaUrl: '',
    close: () => sqs.close(),
  };
  /** One batch to smsSend, as Lambda's SQS event source sends it; every message back when the call fails. */
  const invokeConsumer = async (records: QueuedRecord[]): Promise<string[]> => {
    const event = { Records: records.map(({ messageId, body }) => ({ messageId, body, eventSource: 'aws:sqs' })) };
    const answer = await fetch(`${emulator.lambdaUrl}/2015-03-31/functions/${functionName}/invocations`, {
      method: 'POST',
      body: JSON.stringify(event),
    });
    const result = (await answer.json()) as { batchItemFailures?: { itemIdentifier: string }[] };
    if (!answer.ok || !Array.isArray(result.batchItemFailures)) throw new Error(`smsSend answered ${answer.status}`);
    return result.batchItemFailures.map((failure) => failure.itemIdentifier);
  };
  emulator.queue = new InProcessQueue(invokeConsumer, { timer: systemTimer, logger, visibilityMs, concurrency: consumers });
  sqs.onSend = (message) => emulator.queue.enqueue(message.body);
  return emulator;
}
