import type { TestProject } from 'vitest/node';
import { createLocalTable, freePort, startLocalDynamoDb } from '../../scripts/local/dynamodb-local.js';

/** The table every test file shares (each works in companies of its own). */
export const TEST_TABLE = 'wallet-auth-test';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

// One in-memory DynamoDB Local for the whole run (a missing Java says what to install); each
// test file works in companies of its own, or in a table of its own where it scans.
export default async function setup(project: TestProject) {
  const dynamo = await startLocalDynamoDb({ port: await freePort() });
  await createLocalTable(dynamo.endpoint, TEST_TABLE);
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
