import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

// A loopback endpoint that answers like Amazon SNS's query API (form-encoded requests, XML
// replies), so the real @aws-sdk/client-sns is exercised end to end without AWS.

interface PublishedSms {
  action: string;
  phoneNumber: string;
  message: string;
  attributes: Record<string, string>;
}

export interface FakeSns {
  endpoint: string;
  published: PublishedSms[];
  /** The SNS error code the next Publish calls fail with, or undefined to succeed. */
  failWith: string | undefined;
  /** While true, Publish calls get no answer at all: a stuck SNS. */
  hang: boolean;
  /**
   * Decides, per Publish, whether the SMS goes out and then its answer is dropped (the
   * connection reset): the sender cannot tell it went. Off unless set.
   */
  dropAnswer: (message: PublishedSms) => boolean;
  close(): Promise<void>;
}

function attributesOf(form: URLSearchParams): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (let index = 1; form.has(`MessageAttributes.entry.${index}.Name`); index++) {
    attributes[form.get(`MessageAttributes.entry.${index}.Name`)!] = form.get(`MessageAttributes.entry.${index}.Value.StringValue`) ?? '';
  }
  return attributes;
}

export async function startFakeSns(): Promise<FakeSns> {
  const fake: FakeSns = { endpoint: '', published: [], failWith: undefined, hang: false, dropAnswer: () => false, close: async () => {} };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (fake.hang) return;
      const form = new URLSearchParams(body);
      const requestId = randomUUID();
      response.setHeader('content-type', 'text/xml');
      if (fake.failWith) {
        response.statusCode = 400;
        response.end(
          `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type>` +
            `<Code>${fake.failWith}</Code><Message>Simulated ${fake.failWith}</Message></Error>` +
            `<RequestId>${requestId}</RequestId></ErrorResponse>`,
        );
        return;
      }
      const published = {
        action: form.get('Action') ?? '',
        phoneNumber: form.get('PhoneNumber') ?? '',
        message: form.get('Message') ?? '',
        attributes: attributesOf(form),
      };
      fake.published.push(published);
      if (fake.dropAnswer(published)) {
        request.socket.destroy();
        return;
      }
      response.end(
        `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult>` +
          `<MessageId>${randomUUID()}</MessageId></PublishResult>` +
          `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></PublishResponse>`,
      );
    });
  });
  Object.assign(fake, await listenOnLoopback(server));
  return fake;
}
