import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Config } from '../config.js';

/** Emulators accept any credentials; these keep the SDK from looking for real ones. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The service's one DynamoDB table and the client that reaches it: what every store function takes. */
export interface Table {
  client: DynamoDBDocumentClient;
  name: string;
}

/**
 * The table of a configuration, with a client whose every attempt is abandoned after
 * dynamodbTimeoutMs (throwOnRequestTimeout: without it the SDK only logs a warning and keeps
 * waiting), so a stuck table costs at most 3 attempts and their backoff: with the 1 s default
 * about 3.5 s, well inside the 10 s Lambda timeout.
 */
export function createTable(
  config: Pick<Config, 'region' | 'dynamodbEndpoint' | 'dynamodbTimeoutMs' | 'tableName' | 'dummyCredentials'>,
): Table {
  const client = new DynamoDBClient({
    region: config.region,
    // DynamoDB Local accepts any credentials; dummy ones keep the SDK from looking for real ones.
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}),
    ...(config.dummyCredentials ? { credentials: DUMMY_CREDENTIALS } : {}),
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: config.dynamodbTimeoutMs,
      requestTimeout: config.dynamodbTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
  return {
    client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    name: config.tableName,
  };
}
