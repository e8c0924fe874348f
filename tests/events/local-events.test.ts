import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteItemCommand, type DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DUMMY_CREDENTIALS } from '../../lib/aws/clients.js';
import { tableDefinition } from '../../lib/store/table-definition.js';
import { main as listEvents } from '../../scripts/list-events.js';
import { localClient } from '../harness/dynamodb-local.js';
import { type DeliveredEvent, type FakeEventBridge, startFakeEventBridge } from '../harness/eventbridge-fake.js';
import { listenOnLoopback } from '../harness/loopback-server.js';
import {
  ConsumerUnavailableError,
  ensureTableStream,
  lambdaApiConsumer,
  type StreamConsumer,
  type StreamPollerOptions,
  startStreamPoller,
} from '../harness/stream-poller.js';
import { runOperator } from '../helpers.js';

// The local stand-ins of issue 31 point 3: the stream poller (Lambda's DynamoDB event source on
// DynamoDB Local), the loopback EventBridge with its dead-letter queue (real SDK clients), and
// npm run events:list over what it delivered.

const endpoint = inject('dynamodbEndpoint');
const dir = mkdtempSync(join(tmpdir(), 'local-events-'));
let dynamo: DynamoDBClient;

beforeAll(() => {
  dynamo = localClient(endpoint);
});
afterAll(() => dynamo.destroy());

/** A table of the test's own with the stream the publisher reads. */
async function streamTable(): Promise<string> {
  const name = `local-events-${randomUUID().slice(0, 8)}`;
  await dynamo.send(
    new CreateTableCommand({
      ...tableDefinition(name),
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  return name;
}

async function putItems(table: string, sks: string[]): Promise<void> {
  for (const sk of sks) await dynamo.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'P' }, sk: { S: sk }, n: { N: '1' } } }));
}

/** A consumer that records every batch it is handed (by sort key) and answers what `answer` says. */
function recordingConsumer(answer: (records: DynamoDBRecord[], call: number) => string[] | 'throw' = () => []) {
  const batches: string[][] = [];
  const consumer: StreamConsumer = async (event: DynamoDBStreamEvent) => {
    batches.push(event.Records.map((record) => record.dynamodb?.Keys?.sk?.S as string));
    const failed = answer(event.Records, batches.length);
    if (failed === 'throw') throw new Error('the consumer failed');
    const sequence = (sk: string) => event.Records.find((record) => record.dynamodb?.Keys?.sk?.S === sk)?.dynamodb?.SequenceNumber;
    // Only records of this batch: an identifier that names none makes the poller hand the whole batch again.
    return { batchItemFailures: failed.filter(sequence).map((sk) => ({ itemIdentifier: sequence(sk) as string })) };
  };
  return { batches, consumer, handed: () => batches.flat() };
}

const fast: Partial<StreamPollerOptions> = { idleMs: 20, retryBaseMs: 5, retryMaxMs: 20, log: () => {} };

describe('the stream poller (Lambda event source on DynamoDB Local)', () => {
  it('hands every change to the consumer in order, as the DynamoDB event Lambda delivers', async () => {
    const table = await streamTable();
    const { consumer, handed, batches } = recordingConsumer();
    const records: DynamoDBRecord[] = [];
    const poller = await startStreamPoller({
      endpoint,
      tableName: table,
      ...fast,
      consumer: async (given) => {
        records.push(...given.Records);
        return consumer(given);
      },
    });
    try {
      const before = Math.floor(Date.now() / 1000);
      await putItems(table, ['a', 'b', 'c']);
      await dynamo.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: { S: 'P' }, sk: { S: 'a' } },
          UpdateExpression: 'SET ended_reason = :r',
          ExpressionAttributeValues: { ':r': { S: 'logout' } },
        }),
      );
      await dynamo.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'P' }, sk: { S: 'b' } } }));
      await poller.drain();
      expect(handed()).toEqual(['a', 'b', 'c', 'a', 'b']);
      expect(batches.every((batch) => batch.length <= 100)).toBe(true);
      expect(records[0]).toMatchObject({
        eventName: 'INSERT',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'us-east-1',
        eventSourceARN: poller.streamArn,
        dynamodb: {
          Keys: { pk: { S: 'P' }, sk: { S: 'a' } },
          NewImage: { pk: { S: 'P' }, sk: { S: 'a' }, n: { N: '1' } },
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      });
      expect(records[0]?.eventID).toEqual(expect.any(String));
      // Epoch seconds, as Lambda hands it, not milliseconds (DynamoDB Local rounds it down to the minute).
      expect(records[0]?.dynamodb?.ApproximateCreationDateTime).toBeGreaterThanOrEqual(before - 60);
      expect(records[0]?.dynamodb?.ApproximateCreationDateTime).toBeLessThanOrEqual(Date.now() / 1000 + 2);
      expect(records.map((record) => record.eventName)).toEqual(['INSERT', 'INSERT', 'INSERT', 'MODIFY', 'REMOVE']);
      expect(records[3]?.dynamodb).toMatchObject({ OldImage: { sk: { S: 'a' } }, NewImage: { ended_reason: { S: 'logout' } } });
      expect(records[4]?.dynamodb?.OldImage).toMatchObject({ sk: { S: 'b' } });
      expect(records[4]?.dynamodb?.NewImage).toBeUndefined();
      // What serverless-offline's Lambda API is sent: the same event as JSON.
      expect(JSON.parse(JSON.stringify(records))).toEqual(records);
      // The sequence numbers rise through the shard.
      const sequences = records.map((record) => BigInt(record.dynamodb?.SequenceNumber as string));
      expect(sequences).toEqual([...sequences].sort((x, y) => (x < y ? -1 : 1)));
    } finally {
      await poller.close();
    }
  });

  it('retries a batch from its first reported failure, not handing the records before it again', async () => {
    const table = await streamTable();
    const { consumer, batches } = recordingConsumer((_records, call) => (call === 1 ? ['d', 'c'] : []));
    await putItems(table, ['a', 'b', 'c', 'd', 'e']);
    const poller = await startStreamPoller({ endpoint, tableName: table, ...fast, consumer });
    try {
      await poller.drain();
      expect(batches).toEqual([
        ['a', 'b', 'c', 'd', 'e'],
        ['c', 'd', 'e'],
      ]);
    } finally {
      await poller.close();
    }
  });

  it('hands the whole batch again when the consumer throws', async () => {
    const table = await streamTable();
    const { consumer, batches } = recordingConsumer((_records, call) => (call === 1 ? 'throw' : []));
    await putItems(table, ['a', 'b']);
    const poller = await startStreamPoller({ endpoint, tableName: table, ...fast, consumer });
    try {
      await poller.drain();
      expect(batches).toEqual([
        ['a', 'b'],
        ['a', 'b'],
      ]);
    } finally {
      await poller.close();
    }
  });

  it('gives a record up after maxAttempts tries (onGiveUp) and goes on with the next', async () => {
    const table = await streamTable();
    const { consumer, handed } = recordingConsumer(() => ['b']);
    const givenUp: string[] = [];
    await putItems(table, ['a', 'b', 'c']);
    const poller = await startStreamPoller({
      endpoint,
      tableName: table,
      ...fast,
      maxAttempts: 3,
      consumer,
      onGiveUp: (records) => {
        givenUp.push(...records.map((record) => record.dynamodb?.Keys?.sk?.S as string));
      },
    });
    try {
      await poller.drain();
      expect(givenUp).toEqual(['b']);
      expect(handed()).toEqual(['a', 'b', 'c', 'b', 'c', 'b', 'c', 'c']);
    } finally {
      await poller.close();
    }
  });

  it('takes up from its checkpoint file after a restart: nothing lost, nothing repeated', async () => {
    const table = await streamTable();
    const checkpointFile = join(dir, `checkpoint-${table}.json`);
    const first = recordingConsumer();
    const poller = await startStreamPoller({ endpoint, tableName: table, ...fast, checkpointFile, consumer: first.consumer });
    await putItems(table, ['a', 'b', 'c']);
    await poller.drain();
    await poller.close();
    await putItems(table, ['d', 'e']);

    const second = recordingConsumer();
    const restarted = await startStreamPoller({ endpoint, tableName: table, ...fast, checkpointFile, consumer: second.consumer });
    const fresh = recordingConsumer();
    const noCheckpoint = await startStreamPoller({ endpoint, tableName: table, ...fast, consumer: fresh.consumer });
    try {
      await Promise.all([restarted.drain(), noCheckpoint.drain()]);
      expect(first.handed()).toEqual(['a', 'b', 'c']);
      expect(second.handed()).toEqual(['d', 'e']);
      // Without one, the stream is read from its start again.
      expect(fresh.handed()).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(JSON.parse(readFileSync(checkpointFile, 'utf8'))).toMatchObject({ streamArn: restarted.streamArn });
    } finally {
      await Promise.all([restarted.close(), noCheckpoint.close()]);
    }
  });
});

describe("npm start's side of the poller", () => {
  it('turns the stream on for a table made without one (an older npm start)', async () => {
    const name = `local-events-${randomUUID().slice(0, 8)}`;
    await dynamo.send(new CreateTableCommand({ ...tableDefinition(name), StreamSpecification: { StreamEnabled: false } }));
    const arn = await ensureTableStream(dynamo, name);
    expect(await ensureTableStream(dynamo, name)).toBe(arn);
    const { consumer, handed } = recordingConsumer();
    const poller = await startStreamPoller({ endpoint, tableName: name, ...fast, consumer });
    try {
      await putItems(name, ['a']);
      await poller.drain();
      expect(handed()).toEqual(['a']);
    } finally {
      await poller.close();
    }
  });

  it("invokes the function through serverless-offline's Lambda API and reads its answer", async () => {
    const received: { url: string; body: string }[] = [];
    let reply: { status: number; headers?: Record<string, string>; body: string } = { status: 200, body: '' };
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ url: request.url ?? '', body });
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body);
      });
    });
    const lambda = await listenOnLoopback(server);
    const event = { Records: [{ eventID: '1', dynamodb: { SequenceNumber: '7' } }] } as DynamoDBStreamEvent;
    try {
      const consumer = lambdaApiConsumer(lambda.endpoint, 'wallet-auth-local-eventsPublish');
      reply = { status: 200, body: JSON.stringify({ batchItemFailures: [{ itemIdentifier: '7' }] }) };
      expect(await consumer(event)).toEqual({ batchItemFailures: [{ itemIdentifier: '7' }] });
      expect(received[0]).toEqual({
        url: '/2015-03-31/functions/wallet-auth-local-eventsPublish/invocations',
        body: JSON.stringify(event),
      });
      reply = { status: 200, body: 'null' };
      expect(await consumer(event)).toBeUndefined();
      // The function threw: the whole batch again.
      reply = { status: 200, headers: { 'X-Amz-Function-Error': 'Unhandled' }, body: '{"errorMessage":"boom"}' };
      await expect(consumer(event)).rejects.toThrow(/function error/);
      // Not served (yet): the batch waits, no try counted.
      reply = { status: 404, body: '{"Message":"Function not found"}' };
      await expect(consumer(event)).rejects.toBeInstanceOf(ConsumerUnavailableError);
    } finally {
      await lambda.close();
    }
    await expect(lambdaApiConsumer(lambda.endpoint, 'x')(event)).rejects.toBeInstanceOf(ConsumerUnavailableError);
  });

  it('counts no try while the consumer is unavailable', async () => {
    const table = await streamTable();
    let calls = 0;
    const givenUp: unknown[] = [];
    await putItems(table, ['a']);
    const poller = await startStreamPoller({
      endpoint,
      tableName: table,
      ...fast,
      retryMaxMs: 5,
      maxAttempts: 2,
      onGiveUp: (records) => {
        givenUp.push(...records);
      },
      consumer: async () => {
        if (++calls <= 3) throw new ConsumerUnavailableError('not up yet');
        return { batchItemFailures: [] };
      },
    });
    try {
      await poller.drain();
      expect(calls).toBe(4);
      expect(givenUp).toEqual([]);
    } finally {
      await poller.close();
    }
  });
});

describe('the loopback EventBridge and dead-letter queue (real SDK clients)', () => {
  let fake: FakeEventBridge;
  const eventsFile = join(dir, 'events.jsonl');
  const deadLettersFile = join(dir, 'dead-letters.jsonl');
  let eventBridge: EventBridgeClient;
  let sqs: SQSClient;
  const entry = (type: string, detail: Record<string, unknown>) => ({
    Source: 'wallet.auth',
    DetailType: type,
    Detail: JSON.stringify(detail),
    EventBusName: 'wallet-auth-test',
  });

  beforeAll(async () => {
    fake = await startFakeEventBridge({ eventsFile, deadLettersFile, busName: 'wallet-auth-test' });
    const options = { endpoint: fake.endpoint, region: 'us-east-1', credentials: DUMMY_CREDENTIALS, maxAttempts: 1 };
    eventBridge = new EventBridgeClient(options);
    sqs = new SQSClient(options);
  });
  afterAll(async () => {
    eventBridge.destroy();
    sqs.destroy();
    await fake.close();
  });

  it('accepts PutEvents and writes each event in the shape EventBridge delivers to a target', async () => {
    const time = new Date('2026-11-25T10:00:00.250Z');
    const answer = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          { ...entry('session.ended', { event_id: 'e1', sid: 's1', reason: 'logout' }), Time: time },
          entry('user.registered', { event_id: 'e2' }),
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(0);
    const lines = readFileSync(eventsFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as DeliveredEvent);
    expect(lines.slice(-2)).toEqual(fake.events.slice(-2));
    expect(lines.at(-2)).toEqual({
      version: '0',
      id: answer.Entries?.[0]?.EventId,
      'detail-type': 'session.ended',
      source: 'wallet.auth',
      account: '000000000000',
      time: '2026-11-25T10:00:00Z',
      region: 'us-east-1',
      resources: [],
      detail: { event_id: 'e1', sid: 's1', reason: 'logout' },
    });
    expect(lines.at(-1)?.id).toBe(answer.Entries?.[1]?.EventId);
  });

  it('fails chosen entries of a batch (a partly failed call), in order, keeping the others', async () => {
    const accepted = fake.events.length;
    fake.faults.failNextEntries = 1;
    fake.faults.entryError = 'InternalFailure';
    fake.faults.failEntry = (given) => (given.DetailType === 'pin.locked' ? 'ThrottlingException' : undefined);
    try {
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            entry('user.disabled', { event_id: 'f1' }),
            entry('pin.locked', { event_id: 'f2' }),
            entry('device.added', { event_id: 'f3' }),
          ],
        }),
      );
      expect(answer.FailedEntryCount).toBe(2);
      expect(answer.Entries?.map((result) => result.ErrorCode ?? 'ok')).toEqual(['InternalFailure', 'ThrottlingException', 'ok']);
      expect(fake.events.slice(accepted).map((event) => event.detail.event_id)).toEqual(['f3']);
      // Another bus than the one served: refused, not delivered.
      const elsewhere = await eventBridge.send(new PutEventsCommand({ Entries: [{ ...entry('user.erased', {}), EventBusName: 'other' }] }));
      expect(elsewhere.Entries?.[0]?.ErrorCode).toBe('ResourceNotFoundException');
    } finally {
      fake.faults.failEntry = undefined;
    }
  });

  it('fails whole calls: throttled (400) or internal (500, which the SDK retries)', async () => {
    fake.faults.failNextCalls = 1;
    fake.faults.callError = 'ThrottlingException';
    await expect(eventBridge.send(new PutEventsCommand({ Entries: [entry('user.deleted', { event_id: 'g1' })] }))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    fake.faults.failNextCalls = 1;
    fake.faults.callError = 'InternalException';
    const retrying = new EventBridgeClient({
      endpoint: fake.endpoint,
      region: 'us-east-1',
      credentials: DUMMY_CREDENTIALS,
      maxAttempts: 2,
    });
    const calls = fake.calls.putEvents;
    const answer = await retrying.send(new PutEventsCommand({ Entries: [entry('user.deleted', { event_id: 'g2' })] }));
    retrying.destroy();
    expect(answer.FailedEntryCount).toBe(0);
    expect(fake.calls.putEvents - calls).toBe(2);
    fake.faults.callFailureRate = 1;
    await expect(eventBridge.send(new PutEventsCommand({ Entries: [entry('user.deleted', { event_id: 'g3' })] }))).rejects.toThrow();
    fake.faults.callFailureRate = 0;
    expect(fake.events.filter((event) => String(event.detail.event_id).startsWith('g')).map((event) => event.detail.event_id)).toEqual([
      'g2',
    ]);
  });

  it('keeps dead letters sent by SendMessageBatch and SendMessage, and can fail them', async () => {
    const bodies = [JSON.stringify({ entry: entry('session.ended', { event_id: 'h1' }), error: 'ThrottlingException' }), 'second'];
    const answer = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: fake.queueUrl,
        Entries: bodies.map((MessageBody, index) => ({ Id: String(index), MessageBody })),
      }),
    );
    expect(answer.Successful?.map((result) => result.Id)).toEqual(['0', '1']);
    await sqs.send(new SendMessageCommand({ QueueUrl: fake.queueUrl, MessageBody: 'third' }));
    const stored = readFileSync(deadLettersFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(stored.map((letter) => letter.body)).toEqual([...bodies, 'third']);
    expect(stored[0]).toMatchObject({ queueUrl: fake.queueUrl, messageId: answer.Successful?.[0]?.MessageId });

    fake.faults.failNextDeadLetterCalls = 1;
    await expect(
      sqs.send(new SendMessageBatchCommand({ QueueUrl: fake.queueUrl, Entries: [{ Id: '0', MessageBody: 'lost' }] })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 500 } });
    expect(fake.deadLetters.map((letter) => letter.body)).toEqual([...bodies, 'third']);
  });
});

describe('npm run events:list', () => {
  const company = 'c'.repeat(32);
  const other = 'd'.repeat(32);
  const user = 'a'.repeat(32);
  const user2 = 'b'.repeat(32);
  const file = join(dir, 'listed.jsonl');
  const line = (event_id: string, company_id: string, user_id: string, occurred_at: number) =>
    JSON.stringify({
      version: '0',
      id: randomUUID(),
      'detail-type': 'x',
      source: 'wallet.auth',
      detail: { event_id, company_id, user_id, occurred_at },
    });

  beforeAll(() => {
    writeFileSync(
      file,
      [
        line('e3', company, user, 3000),
        line('e1', company, user, 1000),
        line('x1', other, user, 1500),
        line('e2', company, user2, 2000),
        // Delivered twice (at least once): listed once.
        line('e1', company, user, 1000),
        line('e4', company, user, 4000),
        '{"version":"0","det',
      ].join('\n'),
    );
  });

  const listed = async (args: string[]) => {
    const outcome = await runOperator(listEvents, args, { EVENTS_FILE: file });
    return {
      ...outcome,
      ids: outcome.stdout
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text).detail.event_id),
    };
  };

  it("prints a company's events once each, oldest first, by user and since", async () => {
    expect((await listed(['--company', company])).ids).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect((await listed(['--company', company.toUpperCase(), '--user', user])).ids).toEqual(['e1', 'e3', 'e4']);
    expect((await listed(['--company', company, '--since', '2000'])).ids).toEqual(['e2', 'e3', 'e4']);
    expect((await listed(['--company', other])).ids).toEqual(['x1']);
  });

  it('refuses bad options with its usage and exit code 2', async () => {
    for (const args of [
      [],
      ['--company', 'nope'],
      ['--company', company, '--user', '12'],
      ['--company', company, '--since', 'soon'],
      ['--x'],
    ]) {
      const outcome = await listed(args);
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stderr).toMatch(/^usage: npm run events:list/);
    }
  });
});
