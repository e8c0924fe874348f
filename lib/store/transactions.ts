import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from './keys.js';
import type { Table } from './table.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A transaction item with a name, so a failed condition can be reported by what it guards. */
export interface LabelledItem<Label extends string> {
  label: Label;
  item: TransactItem;
}

/** Writes an item unless one with its key exists: the shape of every uniqueness claim. */
export function putIfAbsent(table: Table, key: ItemKey, attributes: object): TransactItem {
  return { Put: { TableName: table.name, Item: { ...attributes, ...key }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** The transaction was refused because these conditions did not hold. */
export class ConditionsFailed<Label extends string> extends Error {
  constructor(readonly labels: Label[]) {
    super(`conditions failed: ${labels.join(', ')}`);
    this.name = 'ConditionsFailed';
  }
}

const MAX_ATTEMPTS = 8;
const BASE_DELAY_MS = 15;
const MAX_DELAY_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one all-or-nothing write. A condition that fails is reported as ConditionsFailed with
 * the labels of the items it guarded. A conflict with another transaction in flight on the
 * same items (which the SDK does not retry) is retried with jittered backoff, so concurrent
 * callers get a definite answer instead of a spurious failure.
 */
export async function writeTransaction<Label extends string>(table: Table, items: LabelledItem<Label>[]): Promise<void> {
  const transactItems = items.map(({ item }) => item);
  for (let attempt = 1; ; attempt++) {
    try {
      await table.client.send(new TransactWriteCommand({ TransactItems: transactItems }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = items.filter((_, index) => reasons[index]?.Code === 'ConditionalCheckFailed').map(({ label }) => label);
      if (failed.length) throw new ConditionsFailed(failed);
      const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflicted || attempt >= MAX_ATTEMPTS) throw error;
      await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
    }
  }
}
