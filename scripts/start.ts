// npm start: the whole service on this machine, on embedded defaults. DynamoDB Local keeps its
// data under .data/, the table and a demo company are created on first start, and the API is
// served by serverless-offline on http://localhost:3000 (PORT overrides it).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, watchFile, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createApp } from '../lib/app.js';
import { DUMMY_CREDENTIALS } from '../lib/aws/clients.js';
import { LOCAL_DYNAMODB_PORT, LOCAL_STAGE, readConfig, type SigningAlgorithm } from '../lib/config.js';
import { createLogger } from '../lib/observability/logger.js';
import { newKeySet } from '../lib/secrets/signing-keys.js';
import { demoCompanyId } from '../tests/harness/demo-company.js';
import { createLocalTable, javaProblem, type LocalDynamoDb, localClient, startLocalDynamoDb } from '../tests/harness/dynamodb-local.js';
import { localEnvironment } from '../tests/harness/environment.js';
import { type FakeEventBridge, startFakeEventBridge } from '../tests/harness/eventbridge-fake.js';
import { startSmsQueueEmulator } from '../tests/harness/sms-queue-emulator.js';
import { ensureTableStream, lambdaApiConsumer, type StreamPoller, startStreamPoller } from '../tests/harness/stream-poller.js';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(root, '.data');
const port = process.env.PORT || '3000';

function log(message: string): void {
  console.log(`[start] ${message}`);
}

/** The local server secret, made once and kept, so stored PIN hashes stay checkable. */
function localSecretFile(): string {
  const file = resolve(dataDir, 'server-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return file;
}

/**
 * The local signing key set, made once with one key of ACCESS_TOKEN_ALG and kept (npm run
 * signing-key:rotate adds keys to it, of another algorithm with --alg).
 */
function ensureLocalSigningKeys(file: string, alg: SigningAlgorithm): void {
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(newKeySet(Math.floor(Date.now() / 1000), alg), null, 2), { mode: 0o600 });
}

/**
 * Prints each text message the service puts in the outbox from now on: the local stand-in for a
 * phone, kept out of the functions' own logs (which never hold a code).
 */
function followOutbox(file: string): void {
  let printed = existsSync(file) ? statSync(file).size : 0;
  watchFile(file, { interval: 250 }, (current) => {
    if (current.size < printed) printed = 0;
    if (current.size === printed) return;
    const added = readFileSync(file).subarray(printed, current.size).toString('utf8');
    const complete = added.lastIndexOf('\n') + 1;
    printed += Buffer.byteLength(added.slice(0, complete));
    for (const line of added.slice(0, complete).split('\n').filter(Boolean)) {
      const { phone_number, message } = JSON.parse(line) as { phone_number: string; message: string };
      console.log(`[sms outbox] ${phone_number}: ${message}`);
    }
  });
}

let dynamo: LocalDynamoDb | undefined;

/**
 * The events (API contract 3.13) on this machine: the table's stream read as Lambda's event source
 * reads it, handed to eventsPublish through serverless-offline's Lambda API, which puts them on a
 * loopback EventBridge that writes them to .data/events.jsonl (npm run events:list prints them).
 * A checkpoint keeps the stream's place across restarts. A record the publisher fails on too often
 * goes, as a pointer, to the loopback dead-letter queue (.data/events-dead-letters.jsonl).
 */
async function startEvents(endpoint: string, tableName: string, sink: FakeEventBridge): Promise<StreamPoller> {
  const table = localClient(endpoint);
  try {
    // A table made by an older npm start has no stream yet.
    await ensureTableStream(table, tableName);
  } finally {
    table.destroy();
  }
  const lambdaUrl = `http://127.0.0.1:${process.env.LAMBDA_PORT || '3002'}`;
  const functionName = `wallet-auth-${LOCAL_STAGE}-eventsPublish`;
  const deadLetters = new SQSClient({ endpoint: sink.endpoint, region: 'us-east-1', credentials: DUMMY_CREDENTIALS });
  return startStreamPoller({
    endpoint,
    tableName,
    consumer: lambdaApiConsumer(lambdaUrl, functionName),
    checkpointFile: resolve(dataDir, 'events-stream-checkpoint.json'),
    log: (line) => console.error(`[events] ${line}`),
    onGiveUp: async (records) => {
      const pointers = records.map((record) => ({
        eventSourceARN: record.eventSourceARN,
        eventID: record.eventID,
        eventName: record.eventName,
        SequenceNumber: record.dynamodb?.SequenceNumber,
        ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime,
      }));
      const body = JSON.stringify({ source: 'stream-poller', reason: `${functionName} failed on it too often`, records: pointers });
      await deadLetters.send(new SendMessageCommand({ QueueUrl: sink.queueUrl, MessageBody: body }));
      console.error(
        `[events] gave up on stream record ${pointers.map((pointer) => pointer.SequenceNumber).join(', ')}: in .data/events-dead-letters.jsonl`,
      );
    },
  });
}

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });

  let endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) {
    const problem = javaProblem();
    if (problem) {
      console.error(`[start] ${problem}\n[start] Or point DYNAMODB_ENDPOINT at any DynamoDB you can reach and start again.`);
      process.exit(1);
    }
    const dbPath = resolve(dataDir, 'dynamodb');
    mkdirSync(dbPath, { recursive: true });
    dynamo = await startLocalDynamoDb({ port: Number(process.env.DYNAMODB_PORT || LOCAL_DYNAMODB_PORT), dbPath });
    endpoint = dynamo.endpoint;
    log(`DynamoDB Local on ${endpoint}, data in .data/dynamodb`);
  }

  // SMS_DELIVERY=queue npm start: login_phone queues its texts in a loopback SQS, and smsSend sends
  // them at the pools' pace (docs/scaling.md), as deployed.
  const queue =
    process.env.SMS_DELIVERY === 'queue'
      ? await startSmsQueueEmulator({
          functionName: `wallet-auth-${LOCAL_STAGE}-smsSend`,
          consumers: Number(process.env.SMS_QUEUE_CONSUMERS || 2),
          logger: createLogger('INFO'),
        })
      : undefined;
  if (queue) {
    queue.lambdaUrl = `http://127.0.0.1:${process.env.LAMBDA_PORT || '3002'}`;
    log(`SMS queue on ${queue.sqs.endpoint}: login_phone queues, smsSend sends at the pools' pace`);
  }
  const outboxFile = resolve(dataDir, 'sms-outbox.jsonl');
  const eventBusName = `wallet-auth-${LOCAL_STAGE}`;
  const sink = await startFakeEventBridge({
    eventsFile: resolve(dataDir, 'events.jsonl'),
    deadLettersFile: resolve(dataDir, 'events-dead-letters.jsonl'),
    busName: eventBusName,
  });
  const signingKeysFile = resolve(dataDir, 'signing-keys.json');
  const env = localEnvironment({
    stage: LOCAL_STAGE,
    tableName: process.env.TABLE_NAME || `wallet-auth-${LOCAL_STAGE}`,
    dynamodbEndpoint: endpoint,
    outboxFile,
    serverSecretFile: localSecretFile(),
    signingKeysFile,
    logLevel: process.env.LOG_LEVEL,
    settings: {
      PORT: port,
      ACCESS_TOKEN_ALG: process.env.ACCESS_TOKEN_ALG,
      ...queue?.environment,
      EVENT_BUS_NAME: eventBusName,
      EVENTBRIDGE_ENDPOINT: sink.endpoint,
      EVENTS_DLQ_URL: sink.queueUrl,
    },
  });
  const config = readConfig(env);
  ensureLocalSigningKeys(signingKeysFile, config.accessTokenAlg);
  const app = createApp(config);
  await createLocalTable(endpoint, app.table.name);
  const companyId = await demoCompanyId(app, resolve(dataDir, 'demo-company.json'));
  log(`demo company: ${companyId} (also in .data/demo-company.json)`);
  const poller = await startEvents(endpoint, app.table.name, sink);

  const serverless = resolve(root, 'node_modules/serverless/bin/serverless.js');
  const offline = spawn(process.execPath, [serverless, 'offline', 'start', '--stage', LOCAL_STAGE], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: 'inherit',
  });
  log(`API on http://localhost:${port}  (CompanyID: ${companyId})`);
  log('text messages are printed here as [sms outbox] lines (and kept in .data/sms-outbox.jsonl)');
  followOutbox(outboxFile);
  log(
    `events of the table's changes go to .data/events.jsonl (bus ${eventBusName} on ${sink.endpoint}): npm run events:list -- --company ${companyId}`,
  );

  const shutdown = () => offline.kill('SIGTERM');
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  offline.on('exit', async (code) => {
    // The batch in hand is answered (or left to the checkpoint) before DynamoDB Local stops.
    await poller.close().catch(() => {});
    await sink.close();
    await dynamo?.stop();
    process.exit(code ?? 0);
  });
}

main().catch(async (error: unknown) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  await dynamo?.stop();
  process.exit(1);
});
