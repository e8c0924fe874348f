import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from './keys.js';
import type { Table } from './table.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A transaction item with a name, so a failed condition can be reported by what it guards. */
export interface LabelledItem<Label extends string> {
  label: Label;
  item: TransactItem;
  /**
   * For an item whose condition guards only where it goes (the staff record's place in its
   * company's chain), not whether the write may happen: brings `item` up to date after another
   * writer moved that place. When only such items failed, the transaction is sent again renewed.
   */
  renew?: () => Promise<void>;
  /**
   * The write sent instead when the item goes alone, outside a transaction (writeEachAlone), under
   * a condition whose failure means its work is done already, not a refusal: a copy of it that
   * lands late, after the writes that followed it, then changes nothing (a PIN's tally cleared).
   */
  alone?: TransactItem;
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

/**
 * Renewed items still refused after this many renewals: the place they write kept moving (every
 * round another writer took it), and the caller may try again later (503 with Retry-After).
 */
export class StillContended extends Error {
  constructor(readonly labels: string[]) {
    super(`still contended after renewals: ${labels.join(', ')}`);
    this.name = 'StillContended';
  }
}

const MAX_ATTEMPTS = 8;
/** Renewals of renewable items, each after another writer won the place they take. */
const MAX_RENEWALS = 30;
const BASE_DELAY_MS = 15;
const MAX_DELAY_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one all-or-nothing write. A condition that fails is reported as ConditionsFailed with
 * the labels of the items it guarded. A conflict with another transaction in flight on the
 * same items (which the SDK does not retry) is retried with jittered backoff, so concurrent
 * callers get a definite answer instead of a spurious failure. When only renewable items failed
 * (LabelledItem.renew), they are renewed and the transaction is sent again.
 */
export async function writeTransaction<Label extends string>(table: Table, items: LabelledItem<Label>[]): Promise<void> {
  let renewals = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      // Read each round: a renewal replaces the items it owns.
      await table.client.send(new TransactWriteCommand({ TransactItems: items.map(({ item }) => item) }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failedItems = items.filter((_, index) => reasons[index]?.Code === 'ConditionalCheckFailed');
      const renewers = new Set(failedItems.map(({ renew }) => renew));
      if (failedItems.length && !renewers.has(undefined)) {
        if (renewals >= MAX_RENEWALS) throw new StillContended(failedItems.map(({ label }) => label));
        renewals++;
        for (const renew of renewers) await renew?.();
        await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * renewals));
        attempt = 0;
        continue;
      }
      const failed = failedItems.filter(({ renew }) => renew === undefined).map(({ label }) => label);
      if (failed.length) throw new ConditionsFailed(failed);
      const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflicted || attempt >= MAX_ATTEMPTS) throw error;
      await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
    }
  }
}

/**
 * Sends each item as a write of its own, side by side: 1 WRU an item where a transaction costs 2,
 * for items that need not commit together, each only under its own condition. Answers the labels
 * whose conditions failed; any other error is thrown once every write has settled. A condition
 * check alone is a read, not a write: such items need writeTransaction.
 */
export async function writeEachAlone<Label extends string>(table: Table, items: LabelledItem<Label>[]): Promise<Label[]> {
  const settled = await Promise.allSettled(items.map(({ item, alone }) => sendAlone(table, alone ?? item)));
  const failed: Label[] = [];
  for (const [index, outcome] of settled.entries()) {
    if (outcome.status === 'fulfilled') continue;
    if (!(outcome.reason instanceof ConditionalCheckFailedException)) throw outcome.reason;
    if (!items[index]!.alone) failed.push(items[index]!.label);
  }
  return failed;
}

async function sendAlone(table: Table, item: TransactItem): Promise<unknown> {
  if (item.Put) return table.client.send(new PutCommand(item.Put));
  if (item.Update) return table.client.send(new UpdateCommand(item.Update));
  if (item.Delete) return table.client.send(new DeleteCommand(item.Delete));
  throw new Error('a condition check is no write of its own: send it in a transaction');
}
