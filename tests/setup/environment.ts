import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

// Set before any test file imports lib/config.ts, which reads the environment once.
Object.assign(process.env, {
  STAGE: 'test',
  TABLE_NAME: 'wallet-auth-test',
  DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
  SERVER_SECRET: '5e'.repeat(32),
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: 'us-east-1',
  LOG_LEVEL: 'WARN',
  // A loaded CI machine can stall DynamoDB Local for a moment; the fault tests set their own.
  DYNAMODB_TIMEOUT_MS: '3000',
  SMS_SENDER: 'outbox',
  // One outbox per test file.
  SMS_OUTBOX_FILE: join(tmpdir(), `wallet-outbox-${randomUUID()}.jsonl`),
  COMPANY_CACHE_SECONDS: '0',
  // Node 20 runs the tests; Lambda runs Node 22, which the SDK's warning asks for.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
