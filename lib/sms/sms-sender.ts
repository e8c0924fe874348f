import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { type AwsConfig, awsClient } from '../aws/clients.js';
import type { Config } from '../config.js';

// Text messages leave the service here: through Amazon SNS on a deployed stage, or into a
// local outbox file for npm start, chosen by config.sms.sender.

export interface TextMessage {
  /** E.164 destination. */
  phoneNumber: string;
  text: string;
  /** The sending pool's number, when it is not the configured one (lib/sms/send-pacer.ts). */
  originationNumber?: string | undefined;
}

export type SendText = (message: TextMessage) => Promise<void>;

type SmsConfig = AwsConfig & Pick<Config, 'sms'>;

/**
 * Publishes straight to the phone number as a transactional SMS (higher delivery priority). A
 * stuck SNS is abandoned after sms.maxAttempts timed-out attempts (the SDK's default is to wait 5
 * minutes), so the caller gets its answer, and its send back, well inside the Lambda timeout. The
 * client is built on the first send: every function has a sender, only one sends.
 */
function snsSender(config: SmsConfig): SendText {
  const { sms } = config;
  let client: SNSClient | undefined;
  const attribute = (value: string) => ({ DataType: 'String', StringValue: value });
  return async ({ phoneNumber, text, originationNumber = sms.originationNumber }) => {
    client ??= awsClient(SNSClient, config, 'sns');
    await client.send(
      new PublishCommand({
        PhoneNumber: phoneNumber,
        Message: text,
        MessageAttributes: {
          'AWS.SNS.SMS.SMSType': attribute('Transactional'),
          ...(sms.senderId ? { 'AWS.SNS.SMS.SenderID': attribute(sms.senderId) } : {}),
          ...(originationNumber ? { 'AWS.MM.SMS.OriginationNumber': attribute(originationNumber) } : {}),
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
