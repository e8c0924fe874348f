import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AwsConfig, awsClient } from '../aws/clients.js';
import type { Config } from '../config.js';

/**
 * The signal of the request whose work is running: aborted once it has been answered 503 for its
 * deadline. The client then sends none of its later calls, so work that was given up stops
 * writing; a call already in flight may still land (Idempotency-Key makes that harmless).
 */
export const requestWork = new AsyncLocalStorage<AbortSignal>();

/** Thrown instead of a DynamoDB call made for a request that was already answered 503. */
export class RequestAbandoned extends Error {
  constructor() {
    super('the request was answered for its deadline: its work stops here');
    this.name = 'RequestAbandoned';
  }
}

/** The service's one DynamoDB table and the client that reaches it: what every store function takes. */
export interface Table {
  client: DynamoDBDocumentClient;
  name: string;
}

/**
 * The table of a configuration. A call costs at most its budget (lib/aws/clients.ts
 * dynamodbCallBudgetMs: the first attempt of dynamodbFirstAttemptTimeoutMs and two of
 * dynamodbTimeoutMs, with their backoff; 2.45 s with the defaults), well inside the 10 s Lambda
 * timeout; within it, fast failures are retried up to dynamodbMaxAttempts.
 */
export function createTable(config: AwsConfig & Pick<Config, 'tableName'>): Table {
  const client = awsClient(DynamoDBClient, config, 'dynamodb');
  // Inside the retry loop, so neither a first attempt nor a retry leaves after the deadline.
  client.middlewareStack.add(
    (next) => (args) => {
      if (requestWork.getStore()?.aborted) throw new RequestAbandoned();
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'stopAbandonedWork' },
  );
  return {
    client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    name: config.tableName,
  };
}
