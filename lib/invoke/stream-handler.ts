import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { App } from '../app-context.js';
import { runBatch } from './queue-handler.js';

// A function the table's stream invokes (functions/events-publish.ts). It answers the first record
// to hand again as a batch item failure (ReportBatchItemFailures): Lambda's event source then
// hands that record and every later one of the shard again, never the ones before. It never
// throws: a throw would hand the whole batch again, what was already done included.

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/** Handles a batch by `deadlineMs` (app.timer time); answers the sequence number to go on from, if any. */
type HandleRecords = (records: DynamoDBRecord[], deadlineMs: number) => Promise<string | undefined>;

/** The whole batch again, from its first record. */
export const allRecordsAgain = (event: DynamoDBStreamEvent): DynamoDBBatchResponse => {
  const first = event.Records[0]?.dynamodb?.SequenceNumber;
  return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
};

export function streamHandler(app: App, handle: HandleRecords): StreamHandler {
  return (event, context) =>
    runBatch(
      app,
      context,
      async (deadlineMs) => {
        const again = await handle(event.Records, deadlineMs);
        return { batchItemFailures: again ? [{ itemIdentifier: again }] : [] };
      },
      { answer: () => allRecordsAgain(event), message: 'batch failed; every record comes again' },
    );
}
