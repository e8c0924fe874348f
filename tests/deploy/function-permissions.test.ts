// The IAM role of each function (serverless/permissions.cjs) against what the function does: every
// flow of each function runs against DynamoDB Local while the DynamoDB requests it sends are
// recorded as AWS authorizes them: each item's action (a transaction needs the action of each of
// its items) and the kind of item its key is (serverless/key-kinds.cjs, the dynamodb:LeadingKeys
// patterns), with what an update writes; its uses of the server secret and of SMS too. A role that
// lacks a grant fails in production only; one that grants what no flow does is more than least
// privilege allows.
import { randomInt, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { BatchWriteCommand, DeleteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SigningKeySources } from '../../lib/app.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { readConfig } from '../../lib/config.js';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import { newId } from '../../lib/ids.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { configuredSecret, type SecretSource } from '../../lib/secrets/server-keys.js';
import { configuredKeySet, publicKeySet } from '../../lib/secrets/signing-keys.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../../lib/sessions/end-sessions.js';
import type { SmsQueue } from '../../lib/sms/sms-queue.js';
import { createSmsSender, type SendText } from '../../lib/sms/sms-sender.js';
import {
  AWAITING_RECOVERY_PREFIX,
  addressLimitKey,
  adminCountKey,
  adminSeatKey,
  authorizationKey,
  authorizationReferenceKey,
  awaitingRecoveryKey,
  companyKey,
  companySendLimitKey,
  deviceIndexKey,
  deviceNonceKey,
  emailClaimKey,
  erasureCompanyKey,
  erasureDueKey,
  GRANT_PREFIX,
  grantKey,
  type ItemKey,
  idempotencyRecordKey,
  NOTIFICATION_PREFIX,
  notificationKey,
  otpKey,
  PENDING_PHONE_CHANGE_SORT_KEY,
  pendingPhoneChangeKey,
  phoneChangeIndexKey,
  phoneClaimKey,
  phoneFailuresKey,
  phoneProofKey,
  phoneSendLimitKey,
  pinTriesKey,
  prefixSendLimitKey,
  REFERRAL_COUNT_PREFIX,
  referralCodeKey,
  referralCountKey,
  SESSION_PREFIX,
  STAFF_ACTION_PREFIX,
  sessionKey,
  staffActionKey,
  staffChainHeadKey,
  staffChainKey,
  staffLogKey,
  staffLookupsKey,
  UNREAD_COUNT_PREFIX,
  USER_DEVICE_PREFIX,
  unreadCountKey,
  userDeviceKey,
  userKey,
} from '../../lib/store/keys.js';
import { pendingChangePut, phoneChangeIndexPut } from '../../lib/store/pending-phone-change-store.js';
import { pinTriesClear } from '../../lib/store/pin-store.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { employeeWithDevice, staffMember, strongSession } from '../admin/staff.js';
import { otpLogin, PINS, pinLogin, signUpWithDevice } from '../devices/device-helpers.js';
import { AdjustableClock } from '../harness/adjustable-clock.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { startFakeEventBridge } from '../harness/eventbridge-fake.js';
import { type StreamPoller, startStreamPoller } from '../harness/stream-poller.js';
import {
  type Account,
  codeIn,
  type EndpointName,
  inProcessService,
  invoke,
  invokeQueued,
  lambdaContext,
  logIn,
  newCompany,
  newEmployee,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  sampleRegistration,
  sessionIdOf,
  signUp,
  testEnvironment,
} from '../helpers.js';

/** Some actions on some kinds of item; with attributes, an update that names only those and returns nothing, or what `returns` names. */
interface TableGrant {
  actions: string[];
  keys: string[];
  attributes?: string[];
  returns?: string[];
}
interface Granted {
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
const permissions = require('../../serverless/permissions.cjs') as Record<string, Granted>;
const keyKinds = require('../../serverless/key-kinds.cjs') as Record<string, string>;

/** What one (action, kind of item) pair was seen to do: the attributes its updates name, the ReturnValues asked. */
interface TableUse {
  attributes: Set<string>;
  returnValues: Set<string>;
}
interface Used {
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
const used = new Map<string, Used>();
let running: string | undefined;
const use = (): Used | undefined => {
  if (!running) return undefined;
  if (!used.has(running)) used.set(running, { table: new Map(), secret: false, sms: false });
  return used.get(running);
};

// Every limit on: the per-address and per-range counters are writes of their own.
// Two devices per user, so a third binding removes one.
const settings = {
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
  // The back office's strong sessions stay fresh across the touch intervals the flows wait (an admin
  // made in the flows approves at once, as in every test: the reads and writes of any approval).
  STEP_UP_MAX_AGE_SECONDS: String(30 * 24 * 3600),
};
const config = readConfig(testEnvironment(settings));
const clock = new AdjustableClock();
let outbox: SendText | undefined;
const sms: SendText = async (message) => {
  const user = use();
  if (user) user.sms = true;
  outbox ??= createSmsSender(config);
  await outbox(message);
};
let queueFails = false;
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
const service = inProcessService(config, { clock, sms, smsQueue });

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
const recordingParts = () => ({ clock, sms, secretSource: recordingSecret(), signingKeySources: recordingSigningKeys() });

/** An IAM StringLike pattern as a regular expression: ? is one character, * any run. */
const likePattern = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );
const partitions = Object.entries(keyKinds).map(([kind, pattern]) => ({ kind, pattern, matches: likePattern(pattern) }));
/** The kinds that share a partition pattern (a user's, a device's), which IAM cannot tell apart, by their sort keys. */
const BY_SORT_KEY: [string, (sk: string) => boolean][] = [
  ['session', (sk) => sk.startsWith(SESSION_PREFIX)],
  ['notification', (sk) => sk.startsWith(NOTIFICATION_PREFIX)],
  ['referralCount', (sk) => sk.startsWith(REFERRAL_COUNT_PREFIX)],
  ['unreadCount', (sk) => sk.startsWith(UNREAD_COUNT_PREFIX)],
  // A Query of a user's whole partition (their export) names no sort key: it is the user's.
  ['user', (sk) => sk === userKey(newId(), newId()).sk || sk === ''],
  ['pinTries', (sk) => sk.startsWith('PINTRIES#')],
  ['staffAction', (sk) => sk.startsWith(STAFF_ACTION_PREFIX)],
  ['adminCount', (sk) => sk === adminCountKey(newId()).sk],
  ['adminSeat', (sk) => sk.startsWith('SEAT#')],
  // A Query of what awaits approval names no sort key: it is the grants' (and the recoveries listed beside them).
  ['grant', (sk) => sk.startsWith(GRANT_PREFIX) || sk === ''],
  ['awaitingRecovery', (sk) => sk.startsWith(AWAITING_RECOVERY_PREFIX)],
  ['userDevice', (sk) => sk.startsWith(USER_DEVICE_PREFIX)],
  ['deviceIndex', (sk) => sk === deviceIndexKey(newId(), newId()).sk],
  ['deviceNonce', (sk) => sk === deviceNonceKey(newId(), newId(), 'n').sk.slice(0, -1) || sk.startsWith('NONCE#')],
  ['pendingPhoneChange', (sk) => sk === PENDING_PHONE_CHANGE_SORT_KEY],
];

/** The kind of item a key is: the one partition pattern it matches, and in a user's partition its sort key. */
function kindOf({ pk, sk }: ItemKey): string {
  const patterns = new Set(partitions.filter(({ matches }) => matches.test(pk)).map(({ pattern }) => pattern));
  if (patterns.size !== 1) throw new Error(`${pk} matches ${patterns.size} partition patterns of serverless/key-kinds.cjs`);
  const kinds = partitions.filter(({ pattern }) => patterns.has(pattern)).map(({ kind }) => kind);
  if (kinds.length === 1) return kinds[0]!;
  const kind = BY_SORT_KEY.find(([name, holds]) => kinds.includes(name) && holds(sk))?.[0];
  if (!kind) throw new Error(`${pk} ${sk}: no kind of item of serverless/key-kinds.cjs`);
  return kind;
}

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

/** Records each DynamoDB request a client sends, item by item, under the function running. */
function recordTableActions(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string };
      const operation = request.headers['x-amz-target']?.split('.')[1];
      const user = use();
      if (user && operation) {
        const body = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        for (const item of itemRequests(operation, JSON.parse(body))) {
          const entry = `${item.action} ${kindOf(item.key)}`;
          const seen = user.table.get(entry) ?? { attributes: new Set(), returnValues: new Set() };
          for (const name of item.attributes ?? []) seen.attributes.add(name);
          seen.returnValues.add(item.returnValues ?? 'NONE');
          user.table.set(entry, seen);
        }
      }
      return next(args);
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
const wellKnown = inProcessService(config, recordingParts()).wellKnown;
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
type StreamStart = { poller: StreamPoller; records: Map<string, DynamoDBRecord> };
async function streamStart(): Promise<StreamStart> {
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
async function streamRecordsSince(start: StreamStart, companyId: string): Promise<DynamoDBRecord[]> {
  await start.poller.drain(30_000);
  await start.poller.close();
  return [...start.records.values()].filter((record) => record.dynamodb?.Keys?.pk?.S?.includes(companyId));
}

/**
 * The events' publisher as the table's stream runs it, from an App of its own, on every change the
 * flows committed (in batches of 100, as its event source hands them): noted as reading the stream,
 * and as putting events and sending dead letters when the bus (a loopback one) saw it do so. The
 * first entries fail, so what the bus refuses goes to the dead-letter queue.
 */
async function eventsFlows(start: StreamStart): Promise<void> {
  const records = await streamRecordsSince(start, company.company_id);
  const bus = await startFakeEventBridge({ busName: 'wallet-auth-test', faults: { failNextEntries: 2, entryError: 'InternalFailure' } });
  try {
    const own = inProcessService(
      readConfig(
        testEnvironment({
          ...settings,
          EVENT_BUS_NAME: 'wallet-auth-test',
          EVENTBRIDGE_ENDPOINT: bus.endpoint,
          EVENTS_DLQ_URL: bus.queueUrl,
          EVENTS_MAX_ATTEMPTS: '1',
        }),
      ),
      recordingParts(),
    );
    recordTableActions(own.app.table.client);
    const publish = own.streamed.eventsPublish;
    running = 'eventsPublish';
    use()!.stream = 'read';
    for (let at = 0; at < records.length; at += 100) {
      const batch = records.slice(at, at + 100);
      expect(await publish({ Records: batch }, lambdaContext())).toEqual({ batchItemFailures: [] });
    }
    if (bus.calls.putEvents > 0) use()!.events = 'publish';
    if (bus.calls.deadLetter > 0) use()!.deadLetters = 'events';
    // The flows' changes made events (registrations, logins, locks, a deletion...); the refused ones were set aside.
    expect(bus.events.length).toBeGreaterThan(10);
    expect(bus.deadLetters.length).toBeGreaterThan(0);
  } finally {
    running = undefined;
    await bus.close();
  }
}

/** The eraser a schedule runs, from an App of its own. */
const accountsErase = (() => {
  const own = inProcessService(config, recordingParts());
  recordTableActions(own.app.table.client);
  return own.scheduled.accountsErase;
})();

/** The handlers, each recording under its function's name while it runs (the flows run one call at a time). */
const handlers = Object.fromEntries(
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
const invoked = Object.fromEntries(
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
const recorded = { ...service, handlers, invoked };

let company: Company;
const headers = (authorization?: string) => ({ CompanyID: company.company_id, ...(authorization ? { Authorization: authorization } : {}) });

/** Sessions for a user, stored directly (as many logins would, without their codes); bound to a device when given one. */
async function storeSessions(account: Account, count: number, deviceKey?: string): Promise<void> {
  const now = epochSeconds(service.clock);
  for (let start = 0; start < count; start += 25) {
    const items = Array.from({ length: Math.min(25, count - start) }, () => ({
      ...sessionKey(company.company_id, account.userId, hashToken(randomUUID())),
      user_type: 2,
      created_at: now,
      last_used_at: now,
      expires_at: now + 3600,
      ...(deviceKey ? { device_key: deviceKey } : {}),
    }));
    await service.app.table.client.send(
      new BatchWriteCommand({ RequestItems: { [service.app.table.name]: items.map((Item) => ({ PutRequest: { Item } })) } }),
    );
  }
}

/** Every flow of the API, its refusals included, so each function takes each of its paths. */
async function everyFlow(): Promise<void> {
  const start = await streamStart();
  company = await newCompany(service);
  const referrer: Account = await signUp(recorded, company);
  // Registration: plain, referred, with a phone proof, and reclaiming a phone from an unproven holder.
  const referred = await signUp(recorded, company, { referral_code: referrer.referralCode });
  await signUp(recorded, company, { referral_code: referrer.referralCode, parent_user_id: referred.userId });
  const phone = randomPhoneNumber();
  const proof = await provePhone(recorded, company, phone);
  expect((await signUp(recorded, company, { phone_number: phone, phone_verification_token: proof })).userId).toBeTruthy();
  // A holder with more sessions than one transaction can end (the rest go first, in batches).
  const holder = await signUp(recorded, company);
  await storeSessions(holder, MAX_SESSIONS_IN_TRANSACTION + 1);
  const reclaimProof = await provePhone(recorded, company, String(holder.registration.phone_number));
  await signUp(recorded, company, { phone_number: holder.registration.phone_number, phone_verification_token: reclaimProof });
  expect((await invoke(handlers.userRegister, { path: '/r', headers: headers(), body: referred.registration })).status).toBe(409);

  // Refresh: a new pair; the spent token again within the grace (its successor again); past it (reuse: the session ends, with a notice).
  const refreshing = await signUp(recorded, company);
  const refresh = (refreshToken: string) =>
    invoke(handlers.tokenRefresh, { path: '/t', headers: headers(), body: { refresh_token: refreshToken } });
  expect((await refresh(refreshing.refreshToken)).status).toBe(200);
  expect((await refresh(refreshing.refreshToken)).status).toBe(200);
  clock.advance(config.refreshReuseGraceSeconds + 1);
  expect((await refresh(refreshing.refreshToken)).status).toBe(401);
  // The discovery document and the JWKS, from a function of their own.
  running = 'wellKnown';
  try {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json'])
      expect((await invoke(wellKnown, { method: 'GET', path })).status).toBe(200);
  } finally {
    running = undefined;
  }

  // Codes: a login, a wrong code, a code for nobody, a top-up proof with a token.
  const session = await logIn(recorded, company, referrer);
  const target = { dial_code: '+1', phone_number: String(referred.registration.phone_number), user_type: 2, otp_type: 1 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const right = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  const wrong = right === '000000' ? '111111' : '000000';
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: wrong } })).status).toBe(400);
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: right } })).status).toBe(200);
  // A send the queue fails to take, for a phone sent to before and for one never sent to: the
  // counts are given back and the code taken away.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  queueFails = true;
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(503);
  const neverSent = { ...target, phone_number: String((await signUp(recorded, company)).registration.phone_number) };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: neverSent })).status).toBe(503);
  queueFails = false;
  const nobody = { ...target, phone_number: randomPhoneNumber() };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: nobody })).status).toBe(200);
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...nobody, otp: wrong } })).status).toBe(400);
  // A token unused for longer than the touch interval: each function that takes one records its
  // use. login_phone sends a top-up code, verify_otp takes it with another session of the phone's
  // owner, and an employee registers a customer.
  const employee = await newEmployee(service, company);
  const sameOwner = await logIn(recorded, company, referrer);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const topUp = { ...target, phone_number: String(referrer.registration.phone_number), otp_type: 3 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(session), body: topUp })).status).toBe(200);
  const topUpCode = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${topUp.phone_number}`).at(-1));
  const proved = await invoke(handlers.verifyOtp, { path: '/v', headers: headers(sameOwner), body: { ...topUp, otp: topUpCode } });
  expect(proved.status, JSON.stringify(proved.body)).toBe(200);
  const byEmployee = await invoke(handlers.userRegister, {
    path: '/r',
    headers: headers(employee.authorization),
    body: sampleRegistration(),
  });
  expect(byEmployee.status, JSON.stringify(byEmployee.body)).toBe(200);

  // Referrals: a page and the next one, after an hour so the session's use is recorded.
  service.clock.advance(3601);
  const page = await invoke(handlers.referralProgram, {
    method: 'GET',
    path: '/p',
    headers: headers(referrer.authorization),
    query: { limit: '1' },
  });
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  const cursor = page.body.data.next_cursor;
  expect(cursor).toEqual(expect.any(String));
  const next = await invoke(handlers.referralProgram, {
    method: 'GET',
    path: '/p',
    headers: headers(referrer.authorization),
    query: { limit: '1', cursor },
  });
  expect(next.status, JSON.stringify(next.body)).toBe(200);

  // Notifications: a page, the next, the unread ones; marked read by id (one naming its key, one
  // random id found by a walk), then all before a time, then all; after an hour each, so the
  // session's use is recorded.
  service.clock.advance(3601);
  const listNotifications = (query: Record<string, string>) =>
    invoke(handlers.notifications, { method: 'GET', path: '/n', headers: headers(referrer.authorization), query });
  const firstNotifications = await listNotifications({ limit: '1' });
  expect(firstNotifications.status, JSON.stringify(firstNotifications.body)).toBe(200);
  expect((await listNotifications({ limit: '1', cursor: firstNotifications.body.data.next_cursor })).status).toBe(200);
  expect((await listNotifications({ unread: '1' })).status).toBe(200);
  service.clock.advance(3601);
  const markRead = async (body: unknown) => {
    const answer = await invoke(handlers.notificationsRead, { path: '/m', headers: headers(referrer.authorization), body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data.marked as number;
  };
  expect(await markRead({ ids: [firstNotifications.body.data.notification[0].id, `0000${newId().slice(4)}`] })).toBe(1);
  expect(await markRead({ all: 1, before: epochSeconds(service.clock) })).toBe(1);
  expect(await markRead({ all: 1 })).toBe(0);

  // Logout: others, current, all; after an hour, so the session's use is recorded here too.
  service.clock.advance(3601);
  const others = await logIn(recorded, company, referred);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(others), body: { scope: 'others' } })).status).toBe(200);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(others) })).status).toBe(200);
  const logoutAll = () =>
    invoke(handlers.logout, { path: '/o', headers: { ...headers(session), 'Idempotency-Key': randomKeyOnce }, body: { scope: 'all' } });
  const randomKeyOnce = randomUUID();
  expect((await logoutAll()).status).toBe(200);
  // Sent again with its key: the session it ended is over, and the key's record answers its first outcome.
  expect((await logoutAll()).status).toBe(200);

  // A wrong code once the phone's window of wrong codes has run out opens a new window.
  service.clock.advance(service.app.config.otp.failureWindowSeconds + 1);
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const dayLater = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  const wrongAgain = dayLater === '000000' ? '111111' : '000000';
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: wrongAgain } })).status).toBe(400);
  expect((await invoke(handlers.notFound, { path: '/nowhere', headers: headers() })).status).toBe(404);

  // Transaction authorization, after an hour so the session's use is recorded: a right PIN, the
  // same reference again (the tries cleared alone), wrong PINs to the lock (its notice), locked.
  const payer = await signUp(recorded, company);
  service.clock.advance(3601);
  const payment = { amount: '10.50', currency: 'EUR', payee: 'Acme Coffee', reference: `order-${newId()}` };
  const authorize = (pin: string) =>
    invoke(handlers.transactionAuthorization, {
      path: '/a',
      headers: headers(payer.authorization),
      body: { ...payment, transaction_pin: pin },
    });
  const authorized = await authorize(String(payer.registration.transaction_pin));
  expect(authorized.status, JSON.stringify(authorized.body)).toBe(200);
  expect((await authorize(String(payer.registration.transaction_pin))).body.error).toEqual([1]);
  for (let attempt = 0; attempt < service.app.config.pinMaxFailures; attempt++) expect((await authorize('2468')).body.error).toEqual([17]);
  expect((await authorize('2468')).body.error).toEqual([18]);
  const transactionPin = { companyId: company.company_id, userId: payer.userId, pinType: 'transaction' as const };
  await service.app.table.client.send(new DeleteCommand(pinTriesClear(service.app.table, transactionPin).Delete!));
  // Redeemed by the payment service: other values, then the approved ones.
  const redeem = { ...payment, company_id: company.company_id, authorization_token: authorized.body.data.authorization_token };
  expect(await invoked.redeemAuthorization({ ...redeem, amount: '10.51' }, lambdaContext())).toMatchObject({ error: [19] });
  expect(await invoked.redeemAuthorization(redeem, lambdaContext())).toMatchObject({ success: 1 });
  await deviceFlows();
  await accountFlows();
  await backOfficeFlows();
  await backOfficeActionFlows();
  await phoneChangeFlows();
  await pinFlows();
  await deletionFlows();
  await companySettingsFlows();
  await eventsFlows(start);
}

/**
 * A deletion, refused a session begun by registration (touched after the touch interval), then made
 * by a fresh OTP login's session of a user with a device (a nonce and a PIN's tries on it), a
 * referrer, someone they referred, and more sessions than its transaction ends (the rest go first,
 * in batches); then the scheduled eraser erases them (ACCOUNT_ERASE_AFTER_DAYS is 0 here).
 */
async function deletionFlows(): Promise<void> {
  const referrer = await signUp(recorded, company);
  const { account, device } = await signUpWithDevice(recorded, company, { referral_code: referrer.referralCode });
  await signUp(recorded, company, { referral_code: account.referralCode });
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(200);
  const deletion = (authorization: string) => invoke(handlers.userDelete, { path: '/x', headers: headers(authorization), body: {} });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await deletion(account.authorization)).status).toBe(400);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  const fresh = await logIn(recorded, company, account);
  // A wrong PIN after the OTP login (which clears the tries): the tries are left for the eraser.
  expect((await pinLogin(recorded, company, device, '1357')).status).toBe(400);
  const deletionKey = randomUUID();
  const keyedDeletion = () =>
    invoke(handlers.userDelete, { path: '/x', headers: { ...headers(fresh), 'Idempotency-Key': deletionKey }, body: {} });
  expect((await keyedDeletion()).status).toBe(200);
  // Sent again with its key: its own session ended with the account, and the key's record answers the first outcome.
  expect((await keyedDeletion()).status).toBe(200);
  // A user with few sessions: they end in the deletion's transaction, and so does their pending phone change (stored here directly).
  const other = await signUp(recorded, company);
  const now = epochSeconds(service.clock);
  const newPhone = `+1${randomPhoneNumber()}`;
  const change = {
    change_id: newId(),
    user_type: 2,
    dial_code: '+1',
    phone_number: newPhone.slice(2),
    phone_e164: newPhone,
    via: 'user' as const,
    created_at: now,
    effective_at: now + 3600,
    expires_at: now + 7200,
  };
  const index = { user_id: other.userId, change_id: change.change_id, effective_at: change.effective_at, expires_at: change.expires_at };
  await writeTransaction(service.app.table, [
    { label: 'pending', item: pendingChangePut(service.app.table, company.company_id, other.userId, change, undefined) },
    { label: 'index', item: phoneChangeIndexPut(service.app.table, company.company_id, newPhone, 2, index, now) },
  ]);
  expect((await deletion(await logIn(recorded, company, other))).status).toBe(200);
  running = 'accountsErase';
  try {
    expect((await accountsErase({}, lambdaContext())).erased).toBeGreaterThanOrEqual(1);
  } finally {
    running = undefined;
  }
}

/** change_pin (wrong until locked, right with a few and with many other sessions) and reset_pin (by a recent OTP login, by a proof). */
async function pinFlows(): Promise<void> {
  const account = await signUp(recorded, company, PINS);
  const change = (authorization: string, body: unknown) =>
    invoke(handlers.changePin, { path: '/c', headers: headers(authorization), body });
  const reset = (authorization: string, body: unknown) => invoke(handlers.resetPin, { path: '/r', headers: headers(authorization), body });
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) {
    expect((await change(account.authorization, { pin_type: 2, current_pin: '1357', new_pin: '8052' })).status).toBe(400);
  }
  // After an hour unused, so the session's use is recorded.
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  await logIn(recorded, company, account);
  const changed = await change(account.authorization, { pin_type: 1, current_pin: PINS.login_pin, new_pin: '8052' });
  expect(changed.body.data.revoked, JSON.stringify(changed.body)).toBe(1);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await change(account.authorization, { pin_type: 1, current_pin: '8052', new_pin: '5207' })).status).toBe(200);
  // A reset by a proof verified with the user's token, after an hour (the session's use recorded), with
  // another session to end; then one by a session begun by OTP login, with many.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const older = await logIn(recorded, company, account);
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const proving = await logIn(recorded, company, account);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  const proof = await provePhone(recorded, company, String(account.registration.phone_number), { authorization: proving });
  const byProof = await reset(older, { pin_type: 1, new_pin: '2580', phone_verification_token: proof });
  expect(byProof.body.data.revoked, JSON.stringify(byProof.body)).toBeGreaterThan(0);
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const otpSession = await logIn(recorded, company, account);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await reset(otpSession, { pin_type: 2, new_pin: '730264' })).status).toBe(200);
  // The transaction PIN changed too: its own hash and version.
  expect((await change(otpSession, { pin_type: 2, current_pin: '730264', new_pin: '582916' })).status).toBe(200);
}

/** Binding at registration and OTP login (a new key, the same key, a third removing the least recently used), PIN login, the list and removal. */
async function deviceFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const second = newDeviceKeyPair();
  const bound = await otpLogin(recorded, company, account, { device_public_key: second.publicKey });
  expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  // PIN logins: right, a bad signature, an unknown device, wrong until locked, locked.
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).status).toBe(200);
  expect((await pinLogin(recorded, company, { ...newDeviceKeyPair(), deviceKey: device.deviceKey }, PINS.login_pin)).status).toBe(401);
  expect((await pinLogin(recorded, company, { ...device, deviceKey: newId() }, PINS.login_pin)).status).toBe(401);
  for (let i = 0; i < service.app.config.pinMaxFailures; i++) expect((await pinLogin(recorded, company, device, '1357')).status).toBe(400);
  expect((await pinLogin(recorded, company, device, PINS.login_pin)).body.error).toEqual([18]);
  // The same key again: the second device is now the most recently used.
  expect((await otpLogin(recorded, company, account, { device_public_key: second.publicKey })).status).toBe(200);
  // The first device, the least recently used, with more sessions than one transaction ends, goes for a third.
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1, device.deviceKey);
  const third = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(third.status, JSON.stringify(third.body)).toBe(200);
  // A fourth removes the second, whose few sessions end in the binding's transaction.
  const fourth = await otpLogin(recorded, company, account, { device_public_key: newDeviceKeyPair().publicKey });
  expect(fourth.status, JSON.stringify(fourth.body)).toBe(200);
  const plain = await otpLogin(recorded, company, account);
  const token = `Token ${plain.body.data.token.token}`;
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.devices, { method: 'GET', path: '/d', headers: headers(token) })).status).toBe(200);
  // Removal: a device with its one session; one with more sessions than one transaction ends; one not the user's.
  const remove = (deviceKey: string) =>
    invoke(handlers.devicesRemove, { path: '/x', headers: headers(token), body: { device_key: deviceKey } });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await remove(third.body.data.device_key)).body.data.revoked).toBe(1);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1, fourth.body.data.device_key);
  expect((await remove(fourth.body.data.device_key)).status).toBe(200);
  expect((await remove(newId())).status).toBe(404);
  // With its session over, a removal sent with a key looks for a first outcome of that session's: none, 401.
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(token) })).status).toBe(200);
  expect((await remove(third.body.data.device_key)).status).toBe(401);
}

/**
 * The back office: an admin (made by the operator, signed in strongly) registers an employee; a
 * role that gives power asked and approved by a second admin, one taken back at once, the last
 * active admin refused the loss of it, what awaits approval listed; searches by each key; a
 * recovery started (and one refused, recorded), replaced, cancelled, approved and completed.
 */
async function backOfficeFlows(): Promise<void> {
  const [admin, second] = [await staffMember(recorded, company, 'admin'), await staffMember(recorded, company, 'admin')];
  const session = admin.session;
  const post = (name: EndpointName, by: string, body: Record<string, unknown>) =>
    invoke(handlers[name], { path: '/b', headers: headers(by), body: { reason: 'flows', ...body } });
  touchInterval();
  const registered = await invoke(handlers.userRegister, {
    path: '/r',
    headers: headers(session),
    body: sampleRegistration({ user_type: 1, parent_user_id: undefined, referral_code: undefined, reason: 'new hire' }),
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const agent = await employeeWithDevice(recorded, company);
  touchInterval();
  const asked = await post('adminEmployeeRole', second.session, { user_id: agent.userId, role: 'admin' });
  expect(asked.body.data.pending, JSON.stringify(asked.body)).toBe(1);
  touchInterval();
  expect((await post('adminEmployeesApprove', session, { grant_id: asked.body.data.grant_id })).status).toBe(200);
  expect((await post('adminEmployeeRole', session, { user_id: agent.userId, role: 'support' })).status).toBe(200);
  // Searches by each exact key, one that finds nobody, after the touch interval.
  const customer = await signUp(recorded, company);
  touchInterval();
  const search = (body: Record<string, unknown>) => post('adminUsersSearch', session, body);
  for (const key of [
    { phone: `+1${customer.registration.phone_number}` },
    { email: customer.registration.email },
    { user_id: customer.userId },
    { referral_code: customer.referralCode },
    { phone: '+12025550100' },
  ]) {
    expect((await search(key)).status).toBe(200);
  }
  // Assisted recovery: the agent (now support) starts one, the admin approves it; another started
  // and cancelled by support; one to a number held is refused and recorded; after the hold, the new
  // number's code completes the first, removing the device.
  const agentSession = await strongSession(recorded, company, agent);
  const lost = await signUpWithDevice(recorded, company);
  const act = (handler: 'adminUsersPhoneRecover' | 'adminUsersPhoneApprove' | 'adminUsersPhoneCancel', by: string, body: object) =>
    post(handler, by, { user_id: lost.account.userId, ...body });
  const newNumber = randomPhoneNumber();
  touchInterval();
  const started = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: randomPhoneNumber() });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const held = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: customer.registration.phone_number });
  expect(held.status).toBe(409);
  // One to another number replaces it (its index item deleted); support cancels that, after the touch interval.
  const replacing = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: randomPhoneNumber() });
  touchInterval();
  expect((await act('adminUsersPhoneCancel', agentSession, { change_id: replacing.body.data.change_id })).status).toBe(200);
  const recovery = await act('adminUsersPhoneRecover', agentSession, { dial_code: '+1', phone_number: newNumber });
  touchInterval();
  // What awaits approval: the recovery, its change read.
  expect((await post('adminApprovalsList', session, {})).body.data.recoveries).toHaveLength(1);
  touchInterval();
  const approval = await act('adminUsersPhoneApprove', session, { change_id: recovery.body.data.change_id });
  expect(approval.status, JSON.stringify(approval.body)).toBe(200);
  // The other admin steps down; the last active admin may not.
  expect((await post('adminEmployeeRole', session, { user_id: second.userId, role: 'none' })).status).toBe(200);
  expect((await post('adminEmployeeRole', session, { user_id: admin.userId, role: 'none' })).status).toBe(409);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const target = { dial_code: '+1', phone_number: newNumber, user_type: 2, otp_type: 1 };
  expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${newNumber}`).at(-1));
  expect((await invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } })).status).toBe(200);
}

/** Waits out the touch interval: the next call with a session records its use. */
const touchInterval = () => service.clock.advance(service.app.config.sessionTouchSeconds + 1);

/**
 * The back office's actions on a user, each after the touch interval (so its function records the
 * admin's session's use): one session ended, an ended one refused, all of them (more than one
 * transaction ends); a disable with sessions to end, an enable; a device removed with its session,
 * and again (404); a deletion restored (its erase_after moved past now: deletions are due at once
 * here), and again (409). Then an admin disabled and enabled (their seat given up and taken), an
 * employee disabled (no seat), an admin's and an employee's own deletion, and the admin restored.
 */
async function backOfficeActionFlows(): Promise<void> {
  const admin = await staffMember(recorded, company, 'admin');
  const session = admin.session;
  const act = (name: EndpointName, body: Record<string, unknown>) =>
    invoke(handlers[name], { path: '/a', headers: headers(session), body: { ...body, reason: 'flows' } });

  const customer = await signUp(recorded, company);
  const sid = sessionIdOf(customer.authorization);
  touchInterval();
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId, sid })).status).toBe(200);
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId, sid })).status).toBe(404);
  await storeSessions(customer, MAX_SESSIONS_IN_TRANSACTION + 1);
  expect((await act('adminUsersSessionsEnd', { user_id: customer.userId })).status).toBe(200);

  await logIn(recorded, company, customer);
  touchInterval();
  const disabled = await act('adminUsersStatus', { user_id: customer.userId, status: 'disabled' });
  expect(disabled.body.data, JSON.stringify(disabled.body)).toMatchObject({ revoked: 1 });
  expect((await act('adminUsersStatus', { user_id: customer.userId, status: 'active' })).status).toBe(200);

  const { account, device } = await signUpWithDevice(recorded, company);
  touchInterval();
  const removal = { user_id: account.userId, device_key: device.deviceKey };
  expect((await act('adminUsersDevicesRemove', removal)).body.data).toMatchObject({ revoked: 1 });
  expect((await act('adminUsersDevicesRemove', removal)).status).toBe(404);

  const leaving = await signUp(recorded, company);
  const deletion = { path: '/x', headers: headers(await logIn(recorded, company, leaving)), body: {} };
  expect((await invoke(service.handlers.userDelete, deletion)).status).toBe(200);
  touchInterval();
  const dueLater = (userId: string) =>
    service.app.table.client.send(
      new UpdateCommand({
        TableName: service.app.table.name,
        Key: userKey(company.company_id, userId),
        UpdateExpression: 'SET erase_after = :later',
        ExpressionAttributeValues: { ':later': epochSeconds(service.clock) + 3600 },
      }),
    );
  await dueLater(leaving.userId);
  expect((await act('adminUsersRestore', { user_id: leaving.userId })).status).toBe(200);
  expect((await act('adminUsersRestore', { user_id: leaving.userId })).status).toBe(409);
  // Views of the customer, masked and whole (an admin's), and of an id the company does not hold; after the touch interval.
  touchInterval();
  const view = (body: Record<string, unknown>) =>
    invoke(handlers.adminUsersView, { path: '/v', headers: headers(session), body: { ...body, reason: 'call 1' } });
  expect((await view({ user_id: customer.userId })).status).toBe(200);
  expect((await view({ user_id: customer.userId, reveal: 1 })).status).toBe(200);
  expect((await view({ user_id: newId() })).status).toBe(404);

  // Staff: an admin disabled and enabled, an employee without a role disabled; each deletes their own account, the admin is restored.
  const [deputy, clerk] = [await staffMember(recorded, company, 'admin'), await staffMember(recorded, company, 'none')];
  expect((await act('adminUsersStatus', { user_id: deputy.userId, status: 'disabled' })).status).toBe(200);
  expect((await act('adminUsersStatus', { user_id: deputy.userId, status: 'active' })).status).toBe(200);
  expect((await act('adminUsersStatus', { user_id: clerk.userId, status: 'disabled' })).status).toBe(200);
  const clerkAgain = await staffMember(recorded, company, 'none');
  for (const employee of [deputy, clerkAgain]) {
    const own = { path: '/x', headers: headers(await strongSession(recorded, company, employee)), body: {} };
    expect((await invoke(handlers.userDelete, own)).status).toBe(200);
  }
  await dueLater(deputy.userId);
  expect((await act('adminUsersRestore', { user_id: deputy.userId })).status).toBe(200);
}

/**
 * The company's settings in the back office, each function after the touch interval: a view; a
 * change of the limits alone (the one update and its record); changes of the countries, and of the
 * texts with the name (the company read first), each asked and applied by a second admin; one
 * refused for a text of 3 SMS; then all put back.
 */
async function companySettingsFlows(): Promise<void> {
  const [admin, second] = [await staffMember(recorded, company, 'admin'), await staffMember(recorded, company, 'admin')];
  const post = (name: 'adminCompanyView' | 'adminCompanyUpdate' | 'adminCompanyApprove', body: Record<string, unknown>, by = admin) =>
    invoke(handlers[name], { path: '/c', headers: headers(by.session), body: { ...body, reason: 'flows' } });
  /** A change as applied: asked, and approved by the second admin when it waits for one. */
  const applied = async (body: Record<string, unknown>) => {
    const asked = await post('adminCompanyUpdate', body);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    if (asked.body.data.pending === 0) return asked;
    touchInterval();
    return post('adminCompanyApprove', { grant_id: asked.body.data.grant_id }, second);
  };
  const { name } = company;
  touchInterval();
  expect((await post('adminCompanyView', {})).status).toBe(200);
  touchInterval();
  const limits = await applied({ limits: { sms_per_hour: 5000, verifies_per_address: null } });
  expect(limits.status, JSON.stringify(limits.body)).toBe(200);
  expect((await applied({ sms_countries: ['US'] })).status).toBe(200);
  const texts = await applied({
    name: `${name} Pay`,
    sms_text: { templates: { en: 'Your {brand} code: {code}' }, default_language: 'en', app_hash: 'FA+9qCX9VSu' },
    phone_change_texts: { en: 'Your {brand} account moved to another number.' },
  });
  expect(texts.status, JSON.stringify(texts.body)).toBe(200);
  const tooLong = `{code} ${'Keep it to yourself. '.repeat(16)}`;
  expect((await post('adminCompanyUpdate', { sms_text: { templates: { en: tooLong } } })).status).toBe(400);
  const back = await applied({
    name,
    sms_text: { templates: { en: null }, default_language: null, app_hash: null },
    phone_change_texts: { en: null },
    limits: { sms_per_hour: null },
    sms_countries: 'all',
  });
  expect(back.status, JSON.stringify(back.body)).toBe(200);
}

/** The profile: read, names changed, an email changed (its claim moved), another user's email refused; each after the touch interval. */
async function accountFlows(): Promise<void> {
  const [ada, grace] = [await signUp(recorded, company), await signUp(recorded, company)];
  const update = (body: unknown) => invoke(handlers.userProfileUpdate, { path: '/u', headers: headers(ada.authorization), body });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(ada.authorization) })).status).toBe(200);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await update({ first_name: 'Augusta', last_name: 'King' })).status).toBe(200);
  expect((await update({ email: `ada.${ada.userId}@example.com` })).status).toBe(200);
  expect((await update({ email: grace.registration.email })).status).toBe(409);
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await invoke(handlers.userExport, { method: 'GET', path: '/e', headers: headers(ada.authorization) })).status).toBe(200);
}

/**
 * A phone change: refused a session begun by registration (touched after the touch interval), then
 * made at once by a fresh PIN login's session with more other sessions than its transaction ends
 * (the rest go first, in batches), and again to a number taken from a holder who never proved it;
 * the old number's warning is queued. Then from an OTP login's session (contract 3.11, round 5): a
 * wrong login PIN, a pending change, one replacing it, its cancel and an unknown one's, the profile
 * showing one; after the hold, a login to the new number that completes it, and one that finds the
 * number taken meanwhile (the change void).
 */
async function phoneChangeFlows(): Promise<void> {
  const { account, device } = await signUpWithDevice(recorded, company);
  const change = (authorization: string, phoneNumber: string, proof?: string, pin?: string) =>
    invoke(handlers.userPhoneChange, {
      path: '/c',
      headers: headers(authorization),
      body: {
        dial_code: '+1',
        phone_number: phoneNumber,
        ...(proof ? { phone_verification_token: proof } : {}),
        ...(pin ? { login_pin: pin } : {}),
      },
    });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await change(account.authorization, randomPhoneNumber())).status).toBe(400);
  await storeSessions(account, MAX_SESSIONS_IN_TRANSACTION + 1);
  const onPin = await pinLogin(recorded, company, device, PINS.login_pin);
  const fresh = `Token ${onPin.body.data.token.token}`;
  const number = randomPhoneNumber();
  expect((await change(fresh, number, await provePhone(recorded, company, number, { authorization: fresh }))).status).toBe(200);
  const holder = await signUp(recorded, company);
  const held = String(holder.registration.phone_number);
  expect((await change(fresh, held, await provePhone(recorded, company, held, { authorization: fresh }))).status).toBe(200);

  const moved = { ...account, registration: { ...account.registration, phone_number: held } };
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  let otp = await logIn(recorded, company, moved);
  const pending = async (phoneNumber: string, pin = PINS.login_pin) => {
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    return change(otp, phoneNumber, await provePhone(recorded, company, phoneNumber, { authorization: otp }), pin);
  };
  expect((await pending(randomPhoneNumber(), '9999')).status).toBe(400);
  expect((await pending(randomPhoneNumber())).body.data.pending).toBe(1);
  const replacing = await pending(randomPhoneNumber());
  expect(replacing.body.data.pending).toBe(1);
  const cancel = (changeId: string) =>
    invoke(handlers.userPhoneChangeCancel, { path: '/x', headers: headers(otp), body: { change_id: changeId } });
  service.clock.advance(service.app.config.sessionTouchSeconds + 1);
  expect((await cancel(newId())).status).toBe(404);
  expect((await cancel(replacing.body.data.change_id)).status).toBe(200);
  // The touch interval made that session stale (over 10 minutes): a fresh OTP login for the next change.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  otp = await logIn(recorded, company, moved);
  const completing = randomPhoneNumber();
  expect((await pending(completing)).body.data.pending).toBe(1);
  expect(
    (await invoke(handlers.userProfile, { method: 'GET', path: '/p', headers: headers(otp) })).body.data.pending_phone_change,
  ).toBeTruthy();
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const loginTo = async (phoneNumber: string) => {
    const target = { dial_code: '+1', phone_number: phoneNumber, user_type: 2, otp_type: 1 };
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    expect((await invoke(handlers.loginPhone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
    const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${phoneNumber}`).at(-1));
    return (takenMeanwhile?: () => Promise<unknown>) =>
      (takenMeanwhile?.() ?? Promise.resolve()).then(() =>
        invoke(handlers.verifyOtp, { path: '/v', headers: headers(), body: { ...target, otp: code } }),
      );
  };
  expect((await (await loginTo(completing))()).status).toBe(200);
  // Another change of the user, whose number a registration takes between the code and its verify.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const otpAgain = await logIn(recorded, company, { ...account, registration: { ...account.registration, phone_number: completing } });
  const voided = randomPhoneNumber();
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const proof = await provePhone(recorded, company, voided, { authorization: otpAgain });
  expect((await change(otpAgain, voided, proof, PINS.login_pin)).body.data.pending).toBe(1);
  service.clock.advance(service.app.config.phoneChangeHoldHours * 3600);
  const verifyVoided = await loginTo(voided);
  expect((await verifyVoided(() => signUp(recorded, company, { phone_number: voided }))).status).toBe(409);
}

describe('the role of each function (serverless/permissions.cjs)', () => {
  beforeAll(everyFlow, 120_000);

  for (const [name, granted] of Object.entries(permissions)) {
    it(`${name}: grants exactly what its flows do, each action on each kind of item`, () => {
      const did = used.get(name) ?? { table: new Map<string, TableUse>(), secret: false, sms: false };
      const grants = (granted.table ?? []).flatMap((grant) =>
        grant.actions.flatMap((action) => grant.keys.map((kind) => [`${action} ${kind}`, grant] as const)),
      );
      const byEntry = new Map(grants);
      expect(byEntry.size, 'an action on a kind of item granted twice').toBe(grants.length);
      expect([...did.table.keys()].sort()).toEqual([...byEntry.keys()].sort());
      for (const [entry, grant] of byEntry) {
        if (!grant.attributes) continue;
        const seen = did.table.get(entry)!;
        const allowed = ['pk', 'sk', ...grant.attributes];
        expect(
          [...seen.attributes].filter((attribute) => !allowed.includes(attribute)),
          entry,
        ).toEqual([]);
        expect(
          [...seen.returnValues].filter((asked) => asked !== 'NONE' && !grant.returns?.includes(asked)),
          entry,
        ).toEqual([]);
      }
      expect(did.secret).toBe(granted.secret ?? false);
      expect(did.sms).toBe(granted.sms ?? false);
      expect(did.queue).toBe(granted.queue);
      expect(did.signingKeys).toBe(granted.signingKeys);
      expect(did.events).toBe(granted.events);
      expect(did.stream).toBe(granted.stream);
      expect(did.deadLetters).toBe(granted.deadLetters);
    });
  }

  it('holds transaction authorization, PIN login, PIN change and device removal to the attributes they write in a user’s partition', () => {
    // IAM sees no sort key: an update allowed on a user's partition without attributes could set any attribute of the user.
    const userPartition = keyKinds.user!;
    for (const name of ['transactionAuthorization', 'loginPin', 'changePin', 'devicesRemove']) {
      const updates = (permissions[name]!.table ?? []).filter(
        (grant) => grant.actions.includes('UpdateItem') && grant.keys.some((kind) => keyKinds[kind] === userPartition),
      );
      expect(updates.length, name).toBeGreaterThan(0);
      for (const grant of updates) expect(grant.attributes, `${name} ${grant.keys}`).toBeDefined();
    }
    // Never another PIN's hash or a status of the user's own: only change_pin writes PIN hashes and versions beyond a rehash.
    const attributesOf = (name: string) => (permissions[name]!.table ?? []).flatMap((grant) => grant.attributes ?? []);
    expect(attributesOf('transactionAuthorization')).not.toContain('login_pin_hash');
    expect(attributesOf('loginPin')).not.toContain('transaction_pin_hash');
    expect(attributesOf('devicesRemove')).toEqual(['device_count', 'last_used_at', 'ended_reason', 'ended_at_ms']);
  });

  it('names every function of the service', () => {
    expect(Object.keys(permissions).sort()).toEqual(
      [
        ...Object.keys(service.handlers),
        ...Object.keys(service.invoked),
        ...Object.keys(service.queued),
        ...Object.keys(service.scheduled),
        ...Object.keys(service.streamed),
        'wellKnown',
        // The console's page: fixed text (functions/console.ts), no AWS call, so nothing to record.
        'console',
      ].sort(),
    );
  });
});

describe('the kinds of item (serverless/key-kinds.cjs)', () => {
  it('are named after the lib/store/keys.ts functions, and each key matches its own kind only', () => {
    const [company, user, phone] = [newId(), newId(), '+12025550123'];
    const keys: Record<string, ItemKey> = {
      company: companyKey(company),
      user: userKey(company, user),
      session: sessionKey(company, user, hashToken(randomUUID())),
      notification: notificationKey(company, user, Date.now(), newId()),
      referralCount: referralCountKey(company, user, 3),
      unreadCount: unreadCountKey(company, user, 3),
      phoneClaim: phoneClaimKey(company, phone, 2),
      // Anything may follow a kind's marker: an email with another kind's marker in it stays an email claim.
      emailClaim: emailClaimKey(company, 'a#OTP#b#USER#c@example.com', 2),
      referralCode: referralCodeKey(company, 'OTP123'),
      phoneProof: phoneProofKey(company, hashToken(randomUUID())),
      otp: otpKey(company, phone, 2, 1),
      phoneSendLimit: phoneSendLimitKey(company, phone),
      companySendLimit: companySendLimitKey(company, 490_000, 7),
      prefixSendLimit: prefixSendLimitKey(company, '+1202555', 490_000),
      phoneFailures: phoneFailuresKey(company, phone),
      addressLimit: addressLimitKey('2001:db8::1', 'VERIFIES', 1),
      pinTries: pinTriesKey(company, user, 'transaction'),
      authorization: authorizationKey(company, hashToken(randomUUID())),
      // A reference may hold another kind's marker and stays a reference claim.
      authorizationReference: authorizationReferenceKey(company, user, 'order#PHONE#1'),
      userDevice: userDeviceKey(company, user, newId()),
      deviceIndex: deviceIndexKey(company, newId()),
      deviceNonce: deviceNonceKey(company, newId(), 'nonce-0123456789ab'),
      idempotencyRecord: idempotencyRecordKey(company, hashToken(randomUUID())),
      erasureDue: erasureDueKey(company, 1767225600, user),
      erasureCompany: erasureCompanyKey(company),
      adminCount: adminCountKey(company),
      adminSeat: adminSeatKey(company, user),
      staffChain: staffChainKey(company, 42),
      staffChainHead: staffChainHeadKey(company),
      grant: grantKey(company, newId()),
      awaitingRecovery: awaitingRecoveryKey(company, newId()),
      staffLog: staffLogKey(company, Date.now(), newId()),
      staffAction: staffActionKey(company, user, Date.now(), newId()),
      staffLookups: staffLookupsKey(company, user, 490_000),
      pendingPhoneChange: pendingPhoneChangeKey(company, user),
      phoneChangeIndex: phoneChangeIndexKey(company, phone, 2),
    };
    expect(Object.keys(keys).sort()).toEqual(Object.keys(keyKinds).sort());
    for (const [kind, key] of Object.entries(keys)) expect(kindOf(key), `${key.pk} ${key.sk}`).toBe(kind);
  });
});
