import { inject } from 'vitest';
import { startFakeSns } from '../otp/sns-fake.js';
import { startFaultProxy } from './fault-proxy.js';

// Imported first by the secrets-in-logs test file. Codes go out through the real SNS client to
// a loopback SNS, as on AWS: the local outbox sender prints each message, code included, on
// the console by design (npm start's outbox), so it is not the path to check. DynamoDB is
// reached through the fault proxy, so failures (and what they log) can be provoked. Every log
// level is on, so nothing the service could ever log escapes the check.
export const sns = await startFakeSns();
export const dynamoProxy = await startFaultProxy(inject('dynamodbEndpoint'));
Object.assign(process.env, {
  SMS_SENDER: 'sns',
  SNS_ENDPOINT: sns.endpoint,
  DYNAMODB_ENDPOINT: dynamoProxy.endpoint,
  LOG_LEVEL: 'DEBUG',
});
