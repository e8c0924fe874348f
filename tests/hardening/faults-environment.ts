import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { localClient } from '../../scripts/local-dynamodb.js';
import { startFakeSns } from '../otp/sns-fake.js';
import { startFaultProxy } from './fault-proxy.js';
import { ownTable } from './own-table.js';

// Imported first by the faults test file: the service must reach DynamoDB through the fault
// proxy and send SMS through the loopback SNS, and it reads both endpoints once, on import.
// DYNAMODB_TIMEOUT_MS is left at its default on purpose: the default is what must fail fast.
export const dynamoProxy = await startFaultProxy(inject('dynamodbEndpoint'));
export const sns = await startFakeSns();
Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamoProxy.endpoint, SMS_SENDER: 'sns', SNS_ENDPOINT: sns.endpoint });
// The shared test setup raises the timeout for loaded machines; here the default must hold.
delete process.env.DYNAMODB_TIMEOUT_MS;

/** DynamoDB Local itself, past the proxy: what is really stored. */
export const direct = DynamoDBDocumentClient.from(localClient(inject('dynamodbEndpoint')));
export const table = ownTable;
