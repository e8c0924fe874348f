// The stream filters of eventsPublish (serverless.yml), as packaged, against the records DynamoDB
// itself writes to the table's stream for the store's own writes. Lambda applies them in AWS only:
// npm start and the other tests hand the publisher every record, so a filter that drops an event's
// record (a wrong attribute type, a wrong prefix) would be seen nowhere else. Each record below is
// kept when, and only when, it can be an event (API contract 3.13).

import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DUMMY_CREDENTIALS } from '../../lib/aws/clients.js';
import { newId } from '../../lib/ids.js';
import { chainedRecord, GENESIS_HASH } from '../../lib/staff/staff-chain.js';
import { deviceIndexKey, notificationKey, pinTriesKey, sessionKey, userDeviceKey, userKey } from '../../lib/store/keys.js';
import { clearPinTriesAfter, markPinLocked, takePinTry } from '../../lib/store/pin-store.js';
import { endSession, touchSession } from '../../lib/store/session-store.js';
import { staffChainWrites } from '../../lib/store/staff-store.js';
import type { Table } from '../../lib/store/table.js';
import { tableDefinition } from '../../lib/store/table-definition.js';
import { localClient } from '../harness/dynamodb-local.js';
import { sharedPackage } from './packaged-stage.js';

type Pattern = { [key: string]: Pattern | unknown[] };

/**
 * Whether an event pattern of Lambda's event filtering (EventBridge's syntax) matches a record: each
 * field of the pattern must be in the record; a list holds the values a leaf may have (exact, prefix,
 * exists). The subset serverless.yml uses; anything else fails the test rather than guess.
 */
function matches(pattern: Pattern, value: unknown): boolean {
  return Object.entries(pattern).every(([key, wanted]) => {
    const field = (value as Record<string, unknown> | undefined)?.[key];
    if (!Array.isArray(wanted)) return typeof field === 'object' && field !== null && matches(wanted as Pattern, field);
    const leaf = field !== undefined && (typeof field !== 'object' || field === null);
    return wanted.some((rule) => {
      if (typeof rule === 'string' || typeof rule === 'number') return leaf && field === rule;
      const [operator, ...more] = Object.keys(rule as object);
      if (more.length) throw new Error(`unknown rule ${JSON.stringify(rule)}`);
      const argument = (rule as Record<string, unknown>)[operator!];
      if (operator === 'prefix') return leaf && typeof field === 'string' && field.startsWith(argument as string);
      if (operator === 'exists') return argument === true ? leaf : field === undefined;
      throw new Error(`unknown rule ${JSON.stringify(rule)}`);
    });
  });
}

let dynamo: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let table: Table;
let patterns: Pattern[];

beforeAll(async () => {
  const endpoint = inject('dynamodbEndpoint');
  dynamo = localClient(endpoint);
  streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: DUMMY_CREDENTIALS });
  // A table of the test's own, as npm start and the tests create it (its stream included).
  const name = `stream-filters-${randomUUID().slice(0, 8)}`;
  await dynamo.send(new CreateTableCommand(tableDefinition(name)));
  table = { client: DynamoDBDocumentClient.from(dynamo), name };
  const { template } = await sharedPackage('ci');
  const [mapping] = Object.values(template.Resources).filter(
    (resource) =>
      resource.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(resource.Properties.EventSourceArn).includes('WalletTable'),
  );
  patterns = mapping!.Properties.FilterCriteria.Filters.map((filter: { Pattern: string }) => JSON.parse(filter.Pattern));
}, 180_000);

afterAll(() => {
  dynamo.destroy();
  streams.destroy();
});

/** Every record of the table's stream so far, in order (DynamoDB Local: shards read to their end). */
async function streamRecords(): Promise<StreamRecord[]> {
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: table.name }));
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }));
  const records: StreamRecord[] = [];
  for (const shard of StreamDescription!.Shards ?? []) {
    let { ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: Table!.LatestStreamArn!, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(page.Records ?? []));
      if (!page.Records?.length) break;
      iterator = page.NextShardIterator;
    }
  }
  return records.sort((a, b) => (BigInt(a.dynamodb!.SequenceNumber!) < BigInt(b.dynamodb!.SequenceNumber!) ? -1 : 1));
}

describe('the stream filters of eventsPublish', () => {
  it('keep the records that can be events and drop the others, as DynamoDB writes them', async () => {
    const [companyId, userId, deviceKey] = [newId(), newId(), newId()];
    const now = Math.floor(Date.now() / 1000);
    const put = (key: object, item: object) => table.client.send(new PutCommand({ TableName: table.name, Item: { ...key, ...item } }));
    const user = userKey(companyId, userId);
    const session = sessionKey(companyId, userId, randomUUID());
    const tries = { companyId, userId, pinType: 'login' as const };
    /** Each write, with whether its record can be an event. */
    const steps: [string, boolean, () => Promise<unknown>][] = [
      ['user registered (PROFILE INSERT)', true, () => put(user, { status_id: 1, phone_e164: '+12025550123', first_name: 'Ada' })],
      [
        'user changed (PROFILE MODIFY)',
        true,
        () =>
          table.client.send(
            new UpdateCommand({
              TableName: table.name,
              Key: user,
              UpdateExpression: 'SET status_id = :s',
              ExpressionAttributeValues: { ':s': 3 },
            }),
          ),
      ],
      [
        'session begun (SESSION# INSERT)',
        false,
        () => put(session, { user_type: 2, created_at: now, last_used_at: now, expires_at: now + 3600 }),
      ],
      ['session used (SESSION# MODIFY, last_used_at)', false, () => touchSession(table, session, now, now + 10)],
      [
        'session ended (SESSION# MODIFY gaining ended_reason)',
        true,
        () => endSession(table, session, { reason: 'logout', atMs: Date.now() }),
      ],
      ['device bound (DEVICE# INSERT)', true, () => put(userDeviceKey(companyId, userId, deviceKey), { last_used_at: now })],
      ['device index (DEVICE INSERT, its own partition)', false, () => put(deviceIndexKey(companyId, deviceKey), { user_id: userId })],
      [
        'device used (DEVICE# MODIFY)',
        false,
        () =>
          table.client.send(
            new UpdateCommand({
              TableName: table.name,
              Key: userDeviceKey(companyId, userId, deviceKey),
              UpdateExpression: 'SET last_used_at = :t',
              ExpressionAttributeValues: { ':t': now + 1 },
            }),
          ),
      ],
      [
        'device removed (DEVICE# REMOVE)',
        true,
        () => table.client.send(new DeleteCommand({ TableName: table.name, Key: userDeviceKey(companyId, userId, deviceKey) })),
      ],
      ['notification (NOTIF# INSERT)', false, () => put(notificationKey(companyId, userId, Date.now(), newId()), { is_read: false })],
      [
        'PIN try taken (PINTRIES# INSERT)',
        false,
        () => takePinTry(table, tries, { attemptId: 'a1', maxTries: 2, nowSeconds: now, staleBefore: now - 60 }),
      ],
      [
        'PIN try taken (PINTRIES# MODIFY, not locked)',
        false,
        () => takePinTry(table, tries, { attemptId: 'a2', maxTries: 2, nowSeconds: now, staleBefore: now - 60 }),
      ],
      ['PIN locked (PINTRIES# MODIFY gaining locked_at)', true, () => markPinLocked(table, tries, { maxTries: 2, nowSeconds: now })],
      ['PIN tries cleared (PINTRIES# REMOVE)', false, () => clearPinTriesAfter(table, tries, 'a2')],
      ...staffChainWrites(
        table,
        chainedRecord(
          {
            action_id: newId(),
            company_id: companyId,
            actor_id: newId(),
            action: 'view',
            user_id: userId,
            reason: 'ticket 1',
            at_ms: Date.now(),
          },
          { seq: 0, hash: GENESIS_HASH },
        ),
      ).map((write, index): [string, boolean, () => Promise<unknown>] => [
        [
          "the staff chain's head moved (STAFFHEAD)",
          'back-office action recorded in the chain (STAFFLOG INSERT)',
          "its copy in the user's partition (STAFF# INSERT)",
        ][index]!,
        index === 1,
        () => (write.Update ? table.client.send(new UpdateCommand(write.Update)) : put({}, write.Put!.Item!)),
      ]),
    ];
    for (const [, , write] of steps) await write();
    const records = await streamRecords();
    expect(records).toHaveLength(steps.length);
    const kept = records.map((record) => patterns.some((pattern) => matches(pattern, record)));
    expect(steps.map(([label], index) => [label, kept[index]])).toEqual(steps.map(([label, event]) => [label, event]));
    // The user's record is the PROFILE item of the user's partition: a key as DynamoDB writes it.
    expect(records[0]!.dynamodb!.Keys).toEqual({ pk: { S: user.pk }, sk: { S: user.sk } });
    expect(pinTriesKey(companyId, userId, 'login').sk.startsWith('PINTRIES#')).toBe(true);
  });

  it('match as Lambda does: a leaf of the wrong type or an object where a value is named is not matched', () => {
    expect(matches({ a: { N: [{ exists: true }] } }, { a: { S: '1' } })).toBe(false);
    expect(matches({ a: [{ exists: true }] }, { a: { S: '1' } })).toBe(false);
    expect(matches({ a: [{ exists: false }] }, { b: 1 })).toBe(true);
    expect(matches({ a: [{ prefix: 'X#' }] }, { a: 'X#1' })).toBe(true);
    expect(matches({ a: ['INSERT', 'MODIFY'] }, { a: 'REMOVE' })).toBe(false);
  });
});
