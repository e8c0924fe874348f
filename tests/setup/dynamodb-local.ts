import type { TestProject } from 'vitest/node';
import { ensureTable } from '../../lib/store/ensure-table.js';
import { freePort, localClient, startLocalDynamoDb } from '../../scripts/local-dynamodb.js';

export const TEST_TABLE = 'wallet-auth-test';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

// One in-memory DynamoDB Local for the whole run; each test file works in companies of its own.
export default async function setup(project: TestProject) {
  const dynamo = await startLocalDynamoDb({ port: await freePort() });
  const client = localClient(dynamo.endpoint);
  await ensureTable(client, TEST_TABLE);
  client.destroy();
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
