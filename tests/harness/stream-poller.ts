import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type AttributeValue,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import { DUMMY_CREDENTIALS } from '../../lib/aws/clients.js';

// Lambda's DynamoDB event source on this machine: reads DynamoDB Local's stream of the table and
// hands each batch (up to 100 records of one shard, in order; a shard's children after it) to a
// consumer as the DynamoDBStreamEvent Lambda would. Like the event source, it retries a batch
// from its first reported failure (ReportBatchItemFailures) or whole when the consumer throws,
// with backoff, and after maxAttempts gives that record up (onGiveUp) and goes on. With a
// checkpoint file (the last answered sequence number of each shard), a restart neither loses
// nor repeats a record.

/** What a consumer answers: the records to retry from, or nothing when all went through. */
export type StreamConsumer = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

/** Thrown by a consumer that was not reached (its server not up yet): the batch waits, no try is counted. */
export class ConsumerUnavailableError extends Error {}

export interface StreamPollerOptions {
  /** DynamoDB Local (its streams are served on the same endpoint). */
  endpoint: string;
  tableName: string;
  consumer: StreamConsumer;
  region?: string;
  /** Records a batch, at most (Lambda's BatchSize). Default 100. */
  batchSize?: number;
  /** The pause between polls when nothing is new. Default 250 ms. */
  idleMs?: number;
  /** Tries of a record before it is given up (Lambda's MaximumRetryAttempts + 1). Default 5. */
  maxAttempts?: number;
  /** The first retry's wait, doubled each try up to retryMaxMs. Defaults 200 ms and 5 s. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Called with a record given up after maxAttempts tries; the poller goes on once it returns. */
  onGiveUp?: (records: DynamoDBRecord[]) => Promise<void> | void;
  /** Where the last answered sequence number of each shard is kept across restarts. */
  checkpointFile?: string;
  /**
   * Where a shard with no checkpoint is read from: its oldest record (default, Lambda's TRIM_HORIZON),
   * or only what is written from now on (LATEST: a test on a table other tests write to as well).
   */
  from?: 'oldest' | 'latest';
  /** Where a poller error is told (default: stderr). */
  log?: (line: string) => void;
}

export interface StreamPoller {
  streamArn: string;
  /** Resolves once every record written before the call has been handed over and answered (or given up). */
  drain(timeoutMs?: number): Promise<void>;
  /** Stops polling after the batch in hand is answered. */
  close(): Promise<void>;
}

interface Checkpoint {
  streamArn: string;
  /** Per shard: the last sequence number answered, and whether the shard is closed and read to its end. */
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
}

function readCheckpoint(file: string | undefined, streamArn: string): Checkpoint {
  if (file && existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
    // Another stream (the table made again) starts from its beginning.
    if (stored.streamArn === streamArn) return stored;
  }
  return { streamArn, shards: {} };
}

function writeCheckpoint(file: string | undefined, checkpoint: Checkpoint): void {
  if (!file) return;
  // Written whole, then renamed: a stop mid-write leaves the previous checkpoint.
  const temporary = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  writeFileSync(temporary, JSON.stringify(checkpoint));
  renameSync(temporary, file);
}

/** An attribute value as Lambda's event carries it: binaries in base64, the rest as DynamoDB's JSON. */
function lambdaValue(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(lambdaValue) };
  const { $unknown: _unknown, ...rest } = value as AttributeValue & { $unknown?: unknown };
  return Object.fromEntries(Object.entries(rest).filter(([, item]) => item !== undefined)) as LambdaAttributeValue;
}

function lambdaImage(image: Record<string, AttributeValue> | undefined): Record<string, LambdaAttributeValue> {
  return Object.fromEntries(Object.entries(image ?? {}).map(([name, value]) => [name, lambdaValue(value)]));
}

/** A stream record as Lambda's DynamoDB event source hands it over. */
export function lambdaRecord(record: StreamRecord, streamArn: string, region: string): DynamoDBRecord {
  const data = record.dynamodb ?? {};
  const created = data.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
      Keys: lambdaImage(data.Keys),
      ...(data.NewImage ? { NewImage: lambdaImage(data.NewImage) } : {}),
      ...(data.OldImage ? { OldImage: lambdaImage(data.OldImage) } : {}),
      SequenceNumber: data.SequenceNumber,
      SizeBytes: data.SizeBytes,
      StreamViewType: data.StreamViewType,
    },
    ...(record.userIdentity ? { userIdentity: { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId } } : {}),
  } as DynamoDBRecord;
}

/**
 * A consumer that invokes a function through serverless-offline's Lambda API (npm start), as the
 * event source invokes the deployed one. Not reached yet (serverless-offline still starting): the
 * batch waits without a try counted. A function error (X-Amz-Function-Error) counts as a throw.
 */
export function lambdaApiConsumer(lambdaUrl: string, functionName: string): StreamConsumer {
  return async (event) => {
    let answer: Response;
    try {
      answer = await fetch(`${lambdaUrl}/2015-03-31/functions/${functionName}/invocations`, {
        method: 'POST',
        body: JSON.stringify(event),
      });
    } catch (error) {
      throw new ConsumerUnavailableError(`${functionName} not reached: ${(error as Error).message}`);
    }
    const text = await answer.text();
    if (answer.status === 404) throw new ConsumerUnavailableError(`${functionName} is not served: ${text.slice(0, 300)}`);
    if (!answer.ok || answer.headers.get('x-amz-function-error')) {
      throw new Error(
        `${functionName} answered ${answer.status}${answer.headers.get('x-amz-function-error') ? ' (function error)' : ''}: ${text.slice(0, 300)}`,
      );
    }
    const result = text ? (JSON.parse(text) as DynamoDBBatchResponse | null) : null;
    return result && Array.isArray(result.batchItemFailures) ? result : undefined;
  };
}

/**
 * Turns the table's stream on (new and old images) when the table has none: a table made by an
 * older npm start. Returns the stream's ARN.
 */
export async function ensureTableStream(client: DynamoDBClient, tableName: string): Promise<string> {
  const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const arn = described.Table?.LatestStreamArn;
  if (arn && described.Table?.StreamSpecification?.StreamEnabled) return arn;
  const updated = await client.send(
    new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
  );
  const updatedArn = updated.TableDescription?.LatestStreamArn;
  if (!updatedArn) throw new Error(`table ${tableName} has no stream`);
  return updatedArn;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const region = options.region ?? 'us-east-1';
  const batchSize = options.batchSize ?? 100;
  const idleMs = options.idleMs ?? 250;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 5000;
  const log = options.log ?? ((line: string) => console.error(`[stream-poller] ${line}`));

  const client = new DynamoDBStreamsClient({ endpoint: options.endpoint, region, credentials: DUMMY_CREDENTIALS, maxAttempts: 2 });
  const tableClient = new DynamoDBClient({ endpoint: options.endpoint, region, credentials: DUMMY_CREDENTIALS });
  const described = await tableClient.send(new DescribeTableCommand({ TableName: options.tableName }));
  tableClient.destroy();
  const streamArn = described.Table?.LatestStreamArn;
  if (!streamArn || !described.Table?.StreamSpecification?.StreamEnabled) throw new Error(`table ${options.tableName} has no stream`);

  const checkpoint = readCheckpoint(options.checkpointFile, streamArn);
  const iterators = new Map<string, string>();
  let shards: Shard[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  let passes = 0;
  let unavailableTries = 0;
  /** Drains waiting for the first idle pass numbered at least `after`. */
  const drains: { after: number; resolve: () => void }[] = [];

  async function listShards(): Promise<void> {
    const listed: Shard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }));
      listed.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    shards = listed;
    // Shards trimmed from the stream need no place in the checkpoint any more.
    const present = new Set(listed.map((shard) => shard.ShardId));
    for (const shardId of Object.keys(checkpoint.shards)) if (!present.has(shardId)) delete checkpoint.shards[shardId];
  }

  /** A shard is read once its parent is read to its end (or gone from the stream). */
  function readable(shard: Shard): boolean {
    const state = checkpoint.shards[shard.ShardId ?? ''];
    if (state?.finished) return false;
    const parent = shard.ParentShardId;
    if (!parent || !shards.some((other) => other.ShardId === parent)) return true;
    return checkpoint.shards[parent]?.finished === true;
  }

  async function shardIterator(shardId: string): Promise<string | undefined> {
    const known = iterators.get(shardId);
    if (known) return known;
    const after = checkpoint.shards[shardId]?.sequenceNumber;
    const position = after
      ? ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } as const)
      : ({ ShardIteratorType: options.from === 'latest' ? 'LATEST' : 'TRIM_HORIZON' } as const);
    try {
      return (await client.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ...position }))).ShardIterator;
    } catch (error) {
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      // The checkpoint is older than the stream keeps (24 hours): what came after it is gone.
      log(`records of shard ${shardId} after ${after} were trimmed from the stream (older than 24 hours): reading from its oldest`);
      const { ShardIterator } = await client.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      return ShardIterator;
    }
  }

  function answered(shardId: string, record: DynamoDBRecord): void {
    checkpoint.shards[shardId] = { ...checkpoint.shards[shardId], sequenceNumber: record.dynamodb?.SequenceNumber };
    writeCheckpoint(options.checkpointFile, checkpoint);
  }

  /** Hands records over until each is answered or given up. */
  async function deliver(shardId: string, records: DynamoDBRecord[]): Promise<void> {
    let pending = records;
    let tries = 0;
    let failing: string | undefined;
    while (pending.length) {
      let firstFailed: number;
      try {
        const response = await options.consumer({ Records: pending });
        unavailableTries = 0;
        const failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
        const index = pending.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
        // An identifier that names no record of the batch: the whole batch again, as Lambda does.
        firstFailed = failed.size && index < 0 ? 0 : index;
      } catch (error) {
        if (error instanceof ConsumerUnavailableError) {
          // Quiet while its server starts (npm start starts the poller first); told once when it takes longer.
          if (++unavailableTries === 30) log(`waiting for the consumer: ${error.message}`);
          if (closed) return;
          await sleep(Math.min(retryMaxMs, 1000));
          continue;
        }
        log(`consumer failed: ${(error as Error).message}`);
        firstFailed = 0;
      }
      if (firstFailed < 0) {
        answered(shardId, pending.at(-1) as DynamoDBRecord);
        return;
      }
      if (firstFailed > 0) answered(shardId, pending[firstFailed - 1] as DynamoDBRecord);
      pending = pending.slice(firstFailed);
      const record = pending[0] as DynamoDBRecord;
      tries = record.eventID === failing ? tries + 1 : 1;
      failing = record.eventID;
      if (tries >= maxAttempts) {
        try {
          await options.onGiveUp?.([record]);
        } catch (error) {
          // Not given up after all: kept, and tried again.
          log(`could not give up record ${record.dynamodb?.SequenceNumber}: ${(error as Error).message}`);
          await sleep(retryMaxMs);
          continue;
        }
        answered(shardId, record);
        pending = pending.slice(1);
        tries = 0;
        failing = undefined;
        continue;
      }
      if (closed) return;
      await sleep(Math.min(retryMaxMs, retryBaseMs * 2 ** (tries - 1)));
    }
  }

  /** Reads one batch of a shard; true when it held records. */
  async function readShard(shard: Shard): Promise<boolean> {
    const shardId = shard.ShardId as string;
    const iterator = await shardIterator(shardId);
    if (!iterator) return false;
    let result: GetRecordsCommandOutput;
    try {
      result = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }));
    } catch (error) {
      iterators.delete(shardId);
      if (error instanceof ExpiredIteratorException) return true;
      throw error;
    }
    const records = (result.Records ?? []).map((record) => lambdaRecord(record, streamArn as string, region));
    if (records.length) await deliver(shardId, records);
    if (closed && records.length) {
      // Stopped mid-batch: the next start takes up from the checkpoint.
      iterators.delete(shardId);
      return true;
    }
    if (result.NextShardIterator) iterators.set(shardId, result.NextShardIterator);
    else {
      iterators.delete(shardId);
      checkpoint.shards[shardId] = { ...checkpoint.shards[shardId], finished: true };
      writeCheckpoint(options.checkpointFile, checkpoint);
      return true;
    }
    return records.length > 0;
  }

  async function run(): Promise<void> {
    let errors = 0;
    while (!closed) {
      const pass = ++passes;
      let busy = false;
      try {
        await listShards();
        for (const shard of shards.filter(readable)) {
          if (closed) break;
          busy = (await readShard(shard)) || busy;
        }
        errors = 0;
      } catch (error) {
        busy = true;
        errors++;
        log(`reading the stream failed: ${(error as Error).message}`);
        await sleep(Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(errors, 10)));
      }
      if (busy || closed) continue;
      for (const drain of drains.filter((waiting) => waiting.after <= pass)) {
        drains.splice(drains.indexOf(drain), 1);
        drain.resolve();
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, idleMs);
      });
      wake = undefined;
    }
  }

  const running = run();
  return {
    streamArn,
    drain(timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the stream was not drained within ${timeoutMs} ms`)), timeoutMs);
        // A pass that starts after this call sees every record written before it.
        drains.push({
          after: passes + 1,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        wake?.();
      });
    },
    async close() {
      closed = true;
      wake?.();
      await running;
      client.destroy();
    },
  };
}
