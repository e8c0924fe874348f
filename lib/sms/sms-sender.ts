import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Config } from '../config.js';
import { DUMMY_CREDENTIALS } from '../store/table.js';

// Text messages leave the service here: through Amazon SNS on a deployed stage, or into a
// local outbox file for npm start, chosen by config.sms.sender.

export interface TextMessage {
  /** E.164 destination. */
  phoneNumber: string;
  text: string;
}

export type SendText = (message: TextMessage) => Promise<void>;

type SmsConfig = Pick<Config, 'sms' | 'region' | 'dummyCredentials'>;

/**
 * Publishes straight to the phone number as a transactional SMS (higher delivery priority). A
 * stuck SNS is abandoned after two timed-out attempts (the SDK's default is to wait 5 minutes),
 * so the caller gets its answer, and its send back, well inside the Lambda timeout.
 */
function snsSender(config: SmsConfig): SendText {
  const { sms } = config;
  const client = new SNSClient({
    region: config.region,
    ...(sms.snsEndpoint ? { endpoint: sms.snsEndpoint } : {}),
    ...(config.dummyCredentials ? { credentials: DUMMY_CREDENTIALS } : {}),
    maxAttempts: 2,
    requestHandler: new NodeHttpHandler({ connectionTimeout: sms.timeoutMs, requestTimeout: sms.timeoutMs, throwOnRequestTimeout: true }),
  });
  const attribute = (value: string) => ({ DataType: 'String', StringValue: value });
  return async ({ phoneNumber, text }) => {
    await client.send(
      new PublishCommand({
        PhoneNumber: phoneNumber,
        Message: text,
        MessageAttributes: {
          'AWS.SNS.SMS.SMSType': attribute('Transactional'),
          ...(sms.senderId ? { 'AWS.SNS.SMS.SenderID': attribute(sms.senderId) } : {}),
          ...(sms.originationNumber ? { 'AWS.MM.SMS.OriginationNumber': attribute(sms.originationNumber) } : {}),
        },
      }),
    );
  };
}

/**
 * One JSON line per message in the outbox file: local use only. Nothing goes to the console, so
 * no code reaches a function's log; npm start prints each message as it arrives (scripts/start.ts).
 */
function outboxSender(outboxFile: string): SendText {
  return async ({ phoneNumber, text }) => {
    const line = JSON.stringify({ sent_at: new Date().toISOString(), phone_number: phoneNumber, message: text });
    await mkdir(dirname(outboxFile), { recursive: true });
    await appendFile(outboxFile, `${line}\n`);
  };
}

export function createSmsSender(config: SmsConfig): SendText {
  return config.sms.sender === 'sns' ? snsSender(config) : outboxSender(config.sms.outboxFile);
}
