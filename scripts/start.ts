// npm start: the whole service on this machine, on embedded defaults. DynamoDB Local keeps its
// data under .data/, the table and a demo company are created on first start, and the API is
// served by serverless-offline on http://localhost:3000 (PORT overrides it).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LOCAL_DYNAMODB_PORT } from '../lib/config.js';
import { ensureTable } from '../lib/store/ensure-table.js';
import { startLocalDynamoDb, javaAvailable, JAVA_MISSING_MESSAGE, localClient, type LocalDynamoDb } from './local-dynamodb.js';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(root, '.data');
const stage = 'local';
const tableName = process.env.TABLE_NAME || `wallet-auth-${stage}`;
const port = process.env.PORT || '3000';

function log(message: string): void {
  console.log(`[start] ${message}`);
}

/** The local server secret, made once and kept, so stored PIN hashes stay checkable. */
function localServerSecret(): string {
  if (process.env.SERVER_SECRET) return process.env.SERVER_SECRET;
  const file = resolve(dataDir, 'server-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

let dynamo: LocalDynamoDb | undefined;

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });

  let endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) {
    if (!javaAvailable()) {
      console.error(`[start] ${JAVA_MISSING_MESSAGE}`);
      process.exit(1);
    }
    const dynamoPort = Number(process.env.DYNAMODB_PORT || LOCAL_DYNAMODB_PORT);
    const dbPath = resolve(dataDir, 'dynamodb');
    mkdirSync(dbPath, { recursive: true });
    dynamo = await startLocalDynamoDb({ port: dynamoPort, dbPath });
    endpoint = dynamo.endpoint;
    log(`DynamoDB Local on ${endpoint}, data in .data/dynamodb`);
  }

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STAGE: stage,
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    SERVER_SECRET: localServerSecret(),
    // serverless-offline gives handlers no credentials; these keep the SDK from looking for real ones.
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID || 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY || 'local',
    AWS_REGION: process.env.AWS_REGION || 'us-east-1',
    PORT: port,
    SMS_SENDER: 'outbox',
    SMS_OUTBOX_FILE: resolve(dataDir, 'sms-outbox.jsonl'),
    // This machine may run Node 20; Lambda runs Node 22, which the SDK's warning asks for.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  Object.assign(process.env, env);

  const client = localClient(endpoint);
  if ((await ensureTable(client, tableName)) === 'created') log(`table ${tableName} created`);
  client.destroy();

  // Imported only now: the company module reads its configuration from the environment set above.
  const { demoCompanyId } = await import('./demo-company.js');
  const companyId = await demoCompanyId(resolve(dataDir, 'demo-company.json'));
  log(`demo company: ${companyId} (also in .data/demo-company.json)`);

  const serverless = resolve(root, 'node_modules/serverless/bin/serverless.js');
  const offline = spawn(process.execPath, [serverless, 'offline', 'start', '--stage', stage], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  log(`API on http://localhost:${port}  (CompanyID: ${companyId})`);

  const shutdown = () => {
    offline.kill('SIGTERM');
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  offline.on('exit', async (code) => {
    await dynamo?.stop();
    process.exit(code ?? 0);
  });
}

main().catch(async (error: unknown) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  await dynamo?.stop();
  process.exit(1);
});
