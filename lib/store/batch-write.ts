import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Table } from './table.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const BATCH_SIZE = 25;
const MAX_BATCH_ROUNDS = 8;

/** Puts and deletes 25 at a time, retrying what DynamoDB leaves unprocessed, with backoff. */
export async function writeInBatches(table: Table, requests: WriteRequest[]): Promise<void> {
  for (let start = 0; start < requests.length; start += BATCH_SIZE) {
    let pending = requests.slice(start, start + BATCH_SIZE);
    for (let round = 1; pending.length; round++) {
      const { UnprocessedItems } = await table.client.send(new BatchWriteCommand({ RequestItems: { [table.name]: pending } }));
      pending = UnprocessedItems?.[table.name] ?? [];
      if (pending.length && round >= MAX_BATCH_ROUNDS) throw new Error(`${pending.length} writes left unprocessed after ${round} rounds`);
      if (pending.length) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** round));
    }
  }
}
