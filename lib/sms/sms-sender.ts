import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config.js';

// Text messages leave the service here: through Amazon SNS on a deployed stage, or into a
// local outbox file for npm start, chosen by config.sms.sender.

export interface TextMessage {
  /** E.164 destination. */
  phoneNumber: string;
  text: string;
}

export type SendText = (message: TextMessage) => Promise<void>;

let snsClient: SNSClient | undefined;

/**
 * Publish straight to the phone number as a transactional SMS (higher delivery priority). A
 * stuck SNS is abandoned after two timed-out attempts (the SDK's default is to wait 5 minutes),
 * so the caller gets its answer, and its send back, well inside the Lambda timeout.
 */
const sendThroughSns: SendText = async ({ phoneNumber, text }) => {
  snsClient ??= new SNSClient({
    region: config.region,
    ...(config.sms.snsEndpoint ? { endpoint: config.sms.snsEndpoint } : {}),
    maxAttempts: 2,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: config.sms.timeoutMs,
      requestTimeout: config.sms.timeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
  const attribute = (value: string) => ({ DataType: 'String', StringValue: value });
  await snsClient.send(
    new PublishCommand({
      PhoneNumber: phoneNumber,
      Message: text,
      MessageAttributes: {
        'AWS.SNS.SMS.SMSType': attribute('Transactional'),
        ...(config.sms.senderId ? { 'AWS.SNS.SMS.SenderID': attribute(config.sms.senderId) } : {}),
        ...(config.sms.originationNumber ? { 'AWS.MM.SMS.OriginationNumber': attribute(config.sms.originationNumber) } : {}),
      },
    }),
  );
};

/** One JSON line per message in the outbox file, echoed on the console: local use only. */
const sendToOutbox: SendText = async ({ phoneNumber, text }) => {
  const line = JSON.stringify({ sent_at: new Date().toISOString(), phone_number: phoneNumber, message: text });
  await mkdir(dirname(config.sms.outboxFile), { recursive: true });
  await appendFile(config.sms.outboxFile, `${line}\n`);
  console.log(`[sms outbox] ${phoneNumber}: ${text}`);
};

export const sendText: SendText = (message) =>
  config.sms.sender === 'sns' ? sendThroughSns(message) : sendToOutbox(message);
