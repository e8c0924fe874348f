import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

// A loopback endpoint that answers SendMessage like Amazon SQS's JSON protocol (X-Amz-Target
// AmazonSQS.SendMessage, a JSON body, the body's MD5 in the reply, which the SDK checks), so the
// real @aws-sdk/client-sqs is exercised end to end without AWS. What it received becomes the
// records of an SQS event, as Lambda's event source would hand them to the consumer.

export interface SentMessage {
  messageId: string;
  queueUrl: string;
  body: string;
}

export interface FakeSqs {
  endpoint: string;
  queueUrl: string;
  sent: SentMessage[];
  /** The SQS error code SendMessage fails with, or undefined to succeed. */
  failWith: string | undefined;
  /** Called as each message arrives, before it is answered: what the service had done by then. */
  onSend: (message: SentMessage) => Promise<void> | void;
  close(): Promise<void>;
}

export async function startFakeSqs(): Promise<FakeSqs> {
  const fake: FakeSqs = {
    endpoint: '',
    queueUrl: '',
    sent: [],
    failWith: undefined,
    onSend: () => {},
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', async () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      response.setHeader('content-type', 'application/x-amz-json-1.0');
      if (fake.failWith || target !== 'AmazonSQS.SendMessage') {
        // SQS answers its own failures (InternalError, ServiceUnavailable) with 5xx.
        response.statusCode = fake.failWith && /Internal|Unavailable/.test(fake.failWith) ? 500 : 400;
        response.end(JSON.stringify({ __type: `com.amazonaws.sqs#${fake.failWith ?? 'UnsupportedOperation'}`, message: 'simulated' }));
        return;
      }
      const { QueueUrl, MessageBody } = JSON.parse(text) as { QueueUrl: string; MessageBody: string };
      const message = { messageId: randomUUID(), queueUrl: QueueUrl, body: MessageBody };
      await fake.onSend(message);
      fake.sent.push(message);
      response.end(JSON.stringify({ MessageId: message.messageId, MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex') }));
    });
  });
  Object.assign(fake, await listenOnLoopback(server));
  fake.queueUrl = `${fake.endpoint}/000000000000/wallet-auth-test-sms`;
  return fake;
}
