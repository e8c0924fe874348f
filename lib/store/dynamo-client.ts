import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config.js';

// Created once per container and shared by every call. Each attempt is abandoned after
// config.dynamodbTimeoutMs (throwOnRequestTimeout: without it the SDK only logs a warning and
// keeps waiting), so a stuck table costs at most 3 attempts and their backoff: with the 1 s
// default about 3.5 s, well inside the 10 s Lambda timeout.
// DynamoDB Local accepts any credentials; dummy ones keep the SDK from looking for real ones.
const localCredentials =
  config.dynamodbEndpoint && !process.env.AWS_ACCESS_KEY_ID ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;

const client = new DynamoDBClient({
  region: config.region,
  ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint, credentials: localCredentials } : {}),
  maxAttempts: 3,
  requestHandler: new NodeHttpHandler({
    connectionTimeout: config.dynamodbTimeoutMs,
    requestTimeout: config.dynamodbTimeoutMs,
    throwOnRequestTimeout: true,
  }),
});

export { client as dynamoClient };

export const documentClient = DynamoDBDocumentClient.from(client, {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = config.tableName;
