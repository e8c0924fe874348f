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

export function queueHandler(app: App, handle: HandleBatch): QueueHandler {
  return async (event, context) => {
    app.logger.addContext(context);
    app.metrics.startRequest(context.awsRequestId);
    try {
      // Stop taking slots before Lambda would cut the batch off: what is left comes again.
      const deadlineMs = app.timer.now() + context.getRemainingTimeInMillis() - app.config.deadlineMarginMs;
      const records = event.Records.map(({ messageId, body }) => ({ messageId, body }));
      const again = await handle(records, deadlineMs);
      return { batchItemFailures: again.map((itemIdentifier) => ({ itemIdentifier })) };
    } catch (error) {
      app.logger.error('batch failed; every message comes again', { error: error as Error });
      return allAgain(event);
    } finally {
      app.metrics.publish();
      app.logger.resetKeys();
    }
  };
}
