import type { TestProject } from 'vitest/node';
import { createLocalTable, freePort, startLocalDynamoDb } from '../harness/dynamodb-local.js';
import { TEST_TABLE } from './test-environment.js';

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
