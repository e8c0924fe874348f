import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// Counts what each call asks of DynamoDB, from the bench process only: middleware on the
// service's own client asks every command for ReturnConsumedCapacity and tallies the HTTP
// requests (retries included), how many of them had to wait for an earlier one, and the
// capacity consumed (as DynamoDB reports it; transactions counted from the request).

export interface CallUsage {
  /** HTTP requests sent to DynamoDB, retries included. */
  requests: number;
  /** Requests that started with none in flight: the call's sequential DynamoDB steps. */
  sequential: number;
  readUnits: number;
  writeUnits: number;
  /** Write units of failed conditional writes, which DynamoDB bills but does not report. */
  estimatedFailedWriteUnits: number;
  operations: string[];
}

const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand', 'ScanCommand']);
const FAILED_CONDITION = new Set(['ConditionalCheckFailedException', 'TransactionCanceledException']);

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

/**
 * An item's size as DynamoDB bills it, near enough: attribute names plus values (strings in
 * UTF-8, numbers up to 21 bytes, 3 bytes of overhead per map or list).
 */
function itemBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.min(21, Math.ceil(String(value).length / 2) + 1);
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + itemBytes(element), 0);
  return 3 + Object.entries(value).reduce((sum, [name, element]) => sum + Buffer.byteLength(name) + itemBytes(element), 0);
}

/**
 * Write units of a transaction as DynamoDB bills them: 2 per item per KB. DynamoDB Local
 * under-reports transactions, so the bench counts them from the request. Updates and
 * condition checks are counted as items of up to 1 KB (their stored size is not in the request).
 */
function transactionWriteUnits(input: Record<string, any>): number {
  return (input.TransactItems as Record<string, any>[]).reduce((sum, item) => {
    const bytes = item.Put ? itemBytes(item.Put.Item) : 0;
    return sum + 2 * Math.max(1, Math.ceil(bytes / 1024));
  }, 0);
}

/** What a refused write would have been billed had it been written. */
function failedWriteUnits(command: string, input: Record<string, any>): number {
  if (command === 'TransactWriteItemsCommand') return transactionWriteUnits(input);
  return Math.max(1, Math.ceil(itemBytes(input.Item) / 1024));
}

export class RoundTripCounter {
  private usage = RoundTripCounter.empty();
  private inFlight = 0;

  private static empty(): CallUsage {
    return { requests: 0, sequential: 0, readUnits: 0, writeUnits: 0, estimatedFailedWriteUnits: 0, operations: [] };
  }

  /** Starts a new call's tally and returns the previous one. */
  take(): CallUsage {
    const taken = this.usage;
    this.usage = RoundTripCounter.empty();
    return taken;
  }

  attach(client: DynamoDBDocumentClient): void {
    // Outermost: sees each command once, with its final (deserialized) output.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, any>;
        input.ReturnConsumedCapacity = 'TOTAL';
        const command = context.commandName ?? 'unknown';
        this.usage.operations.push(command.replace(/Command$/, ''));
        try {
          const result = await next(args);
          const reported = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
          if (command === 'TransactWriteItemsCommand') {
            this.usage.writeUnits += transactionWriteUnits(input);
            return result;
          }
          for (const capacity of [reported ?? []].flat()) {
            const units = capacity.CapacityUnits ?? 0;
            if (READS.has(command)) this.usage.readUnits += capacity.ReadCapacityUnits ?? units;
            else this.usage.writeUnits += capacity.WriteCapacityUnits ?? units;
          }
          return result;
        } catch (error) {
          if (FAILED_CONDITION.has((error as Error).name)) this.usage.estimatedFailedWriteUnits += failedWriteUnits(command, input);
          throw error;
        }
      },
      { step: 'initialize', name: 'benchConsumedCapacity', priority: 'high' },
    );
    // Innermost: runs once per HTTP attempt, so retries count as the round trips they are.
    client.middlewareStack.add(
      (next) => async (args) => {
        this.usage.requests++;
        if (this.inFlight === 0) this.usage.sequential++;
        this.inFlight++;
        try {
          return await next(args);
        } finally {
          this.inFlight--;
        }
      },
      { step: 'deserialize', name: 'benchRoundTrips', priority: 'low' },
    );
  }
}
