// The service as tests/deploy/function-permissions.test.ts runs it: each function from an App of
// its own, with what it asks of AWS recorded under its name as AWS authorizes it (each item's action
// and kind, what an update writes), and its uses of the server secret, the signing keys, SMS and the
// SMS queue. The flows (function-flows.ts) call it; the test compares what was recorded with the
// roles of serverless/permissions.cjs.
import { randomInt, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { expect, inject } from 'vitest';
import type { SigningKeySources } from '../../lib/app.js';
import { readConfig } from '../../lib/config.js';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import { configuredSecret, type SecretSource } from '../../lib/secrets/server-keys.js';
import { configuredKeySet, publicKeySet } from '../../lib/secrets/signing-keys.js';
import type { SmsQueue } from '../../lib/sms/sms-queue.js';
import { createSmsSender, type SendText } from '../../lib/sms/sms-sender.js';
import type { ItemKey } from '../../lib/store/keys.js';
import { AdjustableClock } from '../harness/adjustable-clock.js';
import { type StreamPoller, startStreamPoller } from '../harness/stream-poller.js';
import { type EndpointName, inProcessService, invokeQueued, testEnvironment } from '../helpers.js';
import { kindOf } from './item-kinds.js';

/** Some actions on some kinds of item; with attributes, an update that names only those and returns nothing, or what `returns` names. */
export interface TableGrant {
  actions: string[];
  keys: string[];
  attributes?: string[];
  returns?: string[];
}
export interface Granted {
  table?: TableGrant[];
  secret?: boolean;
  sms?: boolean;
  queue?: 'send' | 'consume';
  signingKeys?: 'sign' | 'verify';
  events?: 'publish';
  stream?: 'read';
  deadLetters?: 'events';
}
const require = createRequire(import.meta.url);
export const permissions = require('../../serverless/permissions.cjs') as Record<string, Granted>;

/** What one (action, kind of item) pair was seen to do: the attributes its updates name, the ReturnValues asked. */
export interface TableUse {
  attributes: Set<string>;
  returnValues: Set<string>;
}
export interface Used {
  /** By "<action> <kind of item>". */
  table: Map<string, TableUse>;
  secret: boolean;
  sms: boolean;
  queue?: 'send' | 'consume';
  /** The signing key sets read: the public one only ("verify"), or the private one ("sign"). */
  signingKeys?: 'sign' | 'verify';
  /** Events put on the bus; the table's stream read (by the function's event source); the events' dead-letter queue sent to. */
  events?: 'publish';
  stream?: 'read';
  deadLetters?: 'events';
}
export const used = new Map<string, Used>();
let running: string | undefined;
export const use = (): Used | undefined => {
  if (!running) return undefined;
  if (!used.has(running)) used.set(running, { table: new Map(), secret: false, sms: false });
  return used.get(running);
};

/** Runs work as the function `name` runs it: what it asks of AWS is recorded under that function. */
export async function recordAs<T>(name: string, work: () => Promise<T>): Promise<T> {
  const before = running;
  running = name;
  try {
    return await work();
  } finally {
    running = before;
  }
}
// Every limit on: the per-address and per-range counters are writes of their own.
// Two devices per user, so a third binding removes one.
export const settings = {
  OTP_SENDS_PER_ADDRESS_PER_HOUR: '100',
  OTP_VERIFIES_PER_ADDRESS: '100',
  OTP_SENDS_PER_PREFIX_PER_HOUR: '100',
  MAX_DEVICES_PER_USER: '2',
  // As deployed: login_phone queues the text, smsSend sends it.
  SMS_DELIVERY: 'queue',
  // Tokens used across hours (so each function records a session's use) outlive the 15 minutes of an access token.
  ACCESS_TOKEN_TTL_SECONDS: String(90 * 24 * 3600),
  // A deletion is due at once: the flows run the eraser on it.
  ACCOUNT_ERASE_AFTER_DAYS: '0',
  // Strong sessions stay fresh across the touch intervals and holds the flows wait (an hour, a day),
  // so each function that needs one records its use; an admin made in the flows approves at once.
  // Under SESSION_IDLE_SECONDS (14 days), so a flow that waits it out still holds a live, stale session.
  STEP_UP_MAX_AGE_SECONDS: String(10 * 24 * 3600),
};
export const config = readConfig(testEnvironment(settings));
export const clock = new AdjustableClock();
let outbox: SendText | undefined;
const sms: SendText = async (message) => {
  const user = use();
  if (user) user.sms = true;
  outbox ??= createSmsSender(config);
  await outbox(message);
};
let queueFails = false;
/** Whether the SMS queue refuses what it is given (SQS down). */
export const failQueue = (fails: boolean) => {
  queueFails = fails;
};
/**
 * The SMS queue as its event source uses it: a text queued (noted under the function queuing it)
 * is handed at once to smsSend, from an App of its own, which consumes it (noted under smsSend).
 */
const smsQueue: SmsQueue = {
  async enqueue(body) {
    const user = use();
    if (user) user.queue = 'send';
    if (queueFails) throw Object.assign(new Error('SQS is down (test)'), { name: 'InternalError', $fault: 'server' });
    const queuing = running;
    running = 'smsSend';
    try {
      use()!.queue = 'consume';
      expect(await invokeQueued(smsSend, [{ messageId: randomUUID(), body }])).toEqual([]);
    } finally {
      running = queuing;
    }
  },
};
/** The test's own view of the service: the table, the clock and the configuration every function shares. */
export const service = inProcessService(config, { clock, sms, smsQueue });

/** The server secret of the configuration, noting each read under the function running. */
function recordingSecret(): SecretSource {
  const source = configuredSecret(config.serverSecret);
  const noted = <T>(read: Promise<T>) => {
    const user = use();
    if (user) user.secret = true;
    return read;
  };
  return { current: () => noted(source.current()), version: (version) => noted(source.version(version)) };
}

/** The configuration's signing keys, noting under the function running which set it reads. */
function recordingSigningKeys(): SigningKeySources {
  const source = configuredKeySet(config.signingKeys);
  const noted = (kind: 'sign' | 'verify') => {
    const user = use();
    if (user && user.signingKeys !== 'sign') user.signingKeys = kind;
  };
  return {
    private: () => {
      noted('sign');
      return source();
    },
    public: async () => {
      noted('verify');
      return publicKeySet(await source());
    },
  };
}

/** What each function's own App is built with: the recording sources and the test's clock, SMS and queue. */
export const recordingParts = () => ({ clock, sms, secretSource: recordingSecret(), signingKeySources: recordingSigningKeys() });

type Marshalled = Record<string, { S?: string }>;
const keyOf = (item: Marshalled): ItemKey => ({ pk: item.pk?.S ?? '', sk: item.sk?.S ?? '' });

const EXPRESSION_WORDS = new Set(['SET', 'ADD', 'REMOVE', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN']);
const EXPRESSION_FUNCTIONS = /^(attribute_exists|attribute_not_exists|attribute_type|begins_with|contains|size|if_not_exists|list_append)$/;

/** The attributes an update names, in what it writes and in its condition (#names resolved). */
function attributesNamed(request: Record<string, any>): string[] {
  const expressions = `${request.UpdateExpression ?? ''} ${request.ConditionExpression ?? ''}`;
  const names = expressions.match(/(?<![:\w#])#?[A-Za-z_]\w*/g) ?? [];
  return names
    .filter((name) => !EXPRESSION_WORDS.has(name) && !EXPRESSION_FUNCTIONS.test(name))
    .map((name) => request.ExpressionAttributeNames?.[name] ?? name);
}

interface ItemRequest {
  action: string;
  key: ItemKey;
  attributes?: string[];
  returnValues?: string;
}

/** Each item one request body touches, as IAM authorizes it. */
function itemRequests(operation: string, body: Record<string, any>): ItemRequest[] {
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
      return [{ action: operation, key: keyOf(body.Key), returnValues: body.ReturnValues }];
    case 'PutItem':
      return [{ action: operation, key: keyOf(body.Item), returnValues: body.ReturnValues }];
    case 'UpdateItem':
      return [{ action: operation, key: keyOf(body.Key), attributes: attributesNamed(body), returnValues: body.ReturnValues }];
    case 'Query': {
      const value = (pattern: RegExp) => body.ExpressionAttributeValues[body.KeyConditionExpression.match(pattern)?.[1]]?.S ?? '';
      // The sort key's lower bound: begins_with's prefix, or BETWEEN's first value.
      return [{ action: operation, key: { pk: value(/\bpk = (:\w+)/), sk: value(/(?:begins_with\(sk, |sk BETWEEN )(:\w+)/) } }];
    }
    case 'TransactWriteItems':
      return body.TransactItems.flatMap((item: Record<string, any>) =>
        Object.entries(item).map(([kind, request]) => ({
          action: kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`,
          key: keyOf(request.Key ?? request.Item),
          ...(kind === 'Update' ? { attributes: attributesNamed(request) } : {}),
          returnValues: request.ReturnValues,
        })),
      );
    case 'BatchWriteItem':
      return Object.values(body.RequestItems as Record<string, Record<string, any>[]>)
        .flat()
        .map((request) => ({ action: operation, key: keyOf(request.PutRequest?.Item ?? request.DeleteRequest.Key) }));
    default:
      throw new Error(`a DynamoDB operation the permissions test does not know: ${operation}`);
  }
}

const SOURCE_IP = `198.18.${randomInt(256)}.${randomInt(256)}`;

/** What a flow does once a function's request was answered (as another caller racing it would), given the function, the operation and its body. */
type AfterRequest = (functionName: string, operation: string, body: Record<string, unknown>) => Promise<void>;
let afterRequest: AfterRequest | undefined;
/** Runs `work` with `hook` called after each request a recorded function makes. */
export async function withAfterRequest<T>(hook: AfterRequest, work: () => Promise<T>): Promise<T> {
  afterRequest = hook;
  try {
    return await work();
  } finally {
    afterRequest = undefined;
  }
}

/** Records each DynamoDB request a client sends, item by item, under the function running. */
export function recordTableActions(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string };
      const operation = request.headers['x-amz-target']?.split('.')[1];
      const user = use();
      const functionName = running;
      if (!user || !operation || !functionName) return next(args);
      const body = JSON.parse(typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body));
      for (const item of itemRequests(operation, body)) {
        const entry = `${item.action} ${kindOf(item.key)}`;
        const seen = user.table.get(entry) ?? { attributes: new Set(), returnValues: new Set() };
        for (const name of item.attributes ?? []) seen.attributes.add(name);
        seen.returnValues.add(item.returnValues ?? 'NONE');
        user.table.set(entry, seen);
      }
      const answered = await next(args);
      await afterRequest?.(functionName, operation, body);
      return answered;
    },
    { step: 'finalizeRequest', name: 'recordTableActions' },
  );
}

/**
 * The handler of each function from an App of its own, as each function runs in containers of
 * its own on Lambda: its keys read the secret (noted by the recording source) on the function's
 * first need of one, and its table client records what the function asks of DynamoDB.
 */
function ownHandler(endpoint: EndpointName): LambdaHttpHandler {
  const own = inProcessService(config, { ...recordingParts(), smsQueue });
  recordTableActions(own.app.table.client);
  return own.handlers[endpoint];
}
/** The discovery document and the JWKS, from an App of their own. */
export const wellKnown = inProcessService(config, recordingParts()).wellKnown;
/** The queue's consumer, from an App of its own. */
const smsSend = (() => {
  const own = inProcessService(config, recordingParts());
  recordTableActions(own.app.table.client);
  return own.queued.smsSend;
})();

/**
 * The table's stream from before the flows on, read as it is written (DynamoDB Local trims a busy
 * stream: an iterator taken before the flows and read after them found its records gone), as
 * Lambda's event source hands them over.
 */
export type StreamStart = { poller: StreamPoller; records: Map<string, DynamoDBRecord> };
export async function streamStart(): Promise<StreamStart> {
  const records = new Map<string, DynamoDBRecord>();
  const poller = await startStreamPoller({
    endpoint: inject('dynamodbEndpoint'),
    tableName: config.tableName,
    from: 'latest',
    idleMs: 25,
    consumer: async (event) => {
      // Once each: a shard read again from its oldest record hands some over twice.
      for (const record of event.Records) records.set(record.eventID!, record);
      return { batchItemFailures: [] };
    },
  });
  return { poller, records };
}

/** The stream's records since `start`, of the flows' company only (other files write the same table). */
export async function streamRecordsSince(start: StreamStart, companyId: string): Promise<DynamoDBRecord[]> {
  await start.poller.drain(30_000);
  await start.poller.close();
  return [...start.records.values()].filter((record) => record.dynamodb?.Keys?.pk?.S?.includes(companyId));
}

/** The eraser a schedule runs, from an App of its own. */
export const accountsErase = (() => {
  const own = inProcessService(config, recordingParts());
  recordTableActions(own.app.table.client);
  return own.scheduled.accountsErase;
})();

/** The handlers, each recording under its function's name while it runs (the flows run one call at a time). */
export const handlers = Object.fromEntries(
  (Object.keys(service.handlers) as EndpointName[]).map((endpoint) => {
    const handler = ownHandler(endpoint);
    const recording: LambdaHttpHandler = async (event, context) => {
      running = endpoint;
      // An address of this file's own: the per-address counters are shared by every test.
      event.requestContext.http.sourceIp = SOURCE_IP;
      // As the apps send every POST: with an Idempotency-Key, whose record the role must be able to keep.
      if (event.requestContext.http.method === 'POST') event.headers['Idempotency-Key'] ??= randomUUID();
      try {
        return await handler(event, context);
      } finally {
        running = undefined;
      }
    };
    return [endpoint, recording];
  }),
) as typeof service.handlers;
/** The functions with no HTTP route, each from an App of its own too, recording the same way. */
export const invoked = Object.fromEntries(
  (Object.keys(service.invoked) as (keyof typeof service.invoked)[])
    .map((name) => {
      const own = inProcessService(config, recordingParts());
      recordTableActions(own.app.table.client);
      const handler = own.invoked[name];
      return [name, handler] as const;
    })
    .map(([name, handler]) => [
      name,
      (async (payload, context) => {
        running = name;
        try {
          return await handler(payload, context);
        } finally {
          running = undefined;
        }
      }) as typeof handler,
    ]),
) as typeof service.invoked;
export const recorded = { ...service, handlers, invoked };
