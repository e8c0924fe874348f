import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { App } from '../app-context.js';
import type { QueuedRecord } from '../sms/queued-sms-delivery.js';

// A function an SQS queue invokes (functions/sms-send.ts): it answers the messages to come again
// as batch item failures (the event source reports them, ReportBatchItemFailures), and never
// throws: a throw would send the whole batch back, the ones already sent included.

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Handles a batch by `deadlineMs` (app.timer time); answers the ids of the messages to come again. */
type HandleBatch = (records: QueuedRecord[], deadlineMs: number) => Promise<string[]>;

export const allAgain = (event: SQSEvent): SQSBatchResponse => ({
  batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })),
});

/**
 * One batch of an event source (a queue's messages, the stream's records): run by `deadlineMs` (app.timer
 * time, short of Lambda's own cut-off by the deadline margin), counted and logged as one request; a
 * throw answers `again`, the whole batch back, and is logged with `again`'s words.
 */
export async function runBatch<Answer>(
  app: App,
  context: Context,
  run: (deadlineMs: number) => Promise<Answer>,
  again: { answer: () => Answer; message: string },
): Promise<Answer> {
  app.logger.addContext(context);
  app.metrics.startRequest(context.awsRequestId);
  try {
    return await run(app.timer.now() + context.getRemainingTimeInMillis() - app.config.deadlineMarginMs);
  } catch (error) {
    app.logger.error(again.message, { error: error as Error });
    return again.answer();
  } finally {
    app.metrics.publish();
    app.logger.resetKeys();
  }
}

export function queueHandler(app: App, handle: HandleBatch): QueueHandler {
  return (event, context) =>
    // Stop taking slots before Lambda would cut the batch off: what is left comes again.
    runBatch(
      app,
      context,
      async (deadlineMs) => {
        const again = await handle(
          event.Records.map(({ messageId, body }) => ({ messageId, body })),
          deadlineMs,
        );
        return { batchItemFailures: again.map((itemIdentifier) => ({ itemIdentifier })) };
      },
      { answer: () => allAgain(event), message: 'batch failed; every message comes again' },
    );
}
