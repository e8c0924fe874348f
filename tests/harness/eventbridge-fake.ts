import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

// A loopback endpoint for the events publisher on this machine (npm start, the tests, the chaos
// run): it answers EventBridge's PutEvents (awsJson1_1) and, for the events' dead-letter queue,
// SQS's SendMessageBatch and SendMessage (the SQS JSON protocol, with the bodies' MD5 the SDK
// checks), so the real @aws-sdk/client-eventbridge and client-sqs run end to end without AWS.
// What it accepts is kept in memory and, given files, appended as JSON lines: each event in the
// shape EventBridge delivers to a target, each dead letter as received. Fault knobs fail whole
// calls or chosen entries, as the deployed services can.

/** An event as EventBridge hands it to a rule's target. */
export interface DeliveredEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  /** ISO 8601, to the second as EventBridge writes it. */
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

/** A message the dead-letter queue accepted. */
export interface DeadLetter {
  messageId: string;
  queueUrl: string;
  body: string;
  /** ISO 8601. */
  receivedAt: string;
}

/** An entry of a PutEvents call, as the SDK sends it. */
export interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Resources?: string[];
  /** Epoch seconds (the SDK's awsJson timestamp) or an ISO string. */
  Time?: number | string;
}

export type CallError = 'ThrottlingException' | 'InternalException';
export type EntryError = 'ThrottlingException' | 'InternalFailure';

/** The fault knobs; every count is used up by the calls or entries it fails. Change them at any time. */
export interface FakeEventBridgeFaults {
  /** The next N PutEvents calls (HTTP requests: the SDK's own retries count) fail whole with callError. */
  failNextCalls: number;
  /** Each PutEvents call fails whole with this probability (0..1). */
  callFailureRate: number;
  /** ThrottlingException answers 400, InternalException 500. */
  callError: CallError;
  /** The next N entries (over calls, in order) fail on their own with entryError: a partly failed batch. */
  failNextEntries: number;
  /** Each entry fails on its own with this probability. */
  entryFailureRate: number;
  entryError: EntryError;
  /** Chosen entries fail: the error code for an entry, or undefined to accept it (after the knobs above). */
  failEntry: ((entry: PutEventsEntry) => EntryError | undefined) | undefined;
  /** The next N dead-letter calls (SendMessageBatch or SendMessage) fail whole (500 InternalError). */
  failNextDeadLetterCalls: number;
  /** Each dead-letter call fails whole with this probability. */
  deadLetterFailureRate: number;
}

export interface FakeEventBridgeOptions {
  /** Appends each accepted event as one JSON line (DeliveredEvent). */
  eventsFile?: string;
  /** Appends each accepted dead letter as one JSON line (DeadLetter). */
  deadLettersFile?: string;
  /** The one bus it serves; entries naming another are refused (ResourceNotFoundException). Default: any. */
  busName?: string;
  region?: string;
  /** The randomness behind the probabilities (a seeded one makes a chaos run repeatable). */
  random?: () => number;
  faults?: Partial<FakeEventBridgeFaults>;
}

export interface FakeEventBridge {
  /** Serves PutEvents and the dead-letter queue's SQS calls alike. */
  endpoint: string;
  /** The dead-letter queue's URL (EVENTS_DLQ_URL). */
  queueUrl: string;
  /** Accepted events, in the order accepted. */
  events: DeliveredEvent[];
  deadLetters: DeadLetter[];
  /** Requests answered, failed ones included. */
  calls: { putEvents: number; deadLetter: number };
  faults: FakeEventBridgeFaults;
  close(): Promise<void>;
}

const NO_FAULTS: FakeEventBridgeFaults = {
  failNextCalls: 0,
  callFailureRate: 0,
  callError: 'ThrottlingException',
  failNextEntries: 0,
  entryFailureRate: 0,
  entryError: 'ThrottlingException',
  failEntry: undefined,
  failNextDeadLetterCalls: 0,
  deadLetterFailureRate: 0,
};

/** PutEvents takes at most 10 entries; SendMessageBatch at most 10 messages. */
const MAX_ENTRIES = 10;

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

function answer(response: ServerResponse, status: number, body: unknown, contentType: string): void {
  response.statusCode = status;
  response.setHeader('content-type', contentType);
  response.end(JSON.stringify(body));
}

/** EventBridge's time: an ISO string to the second, from the entry's Time or now. */
function eventTime(time: PutEventsEntry['Time']): string {
  const date = typeof time === 'number' ? new Date(time * 1000) : typeof time === 'string' ? new Date(time) : new Date();
  return (Number.isNaN(date.getTime()) ? new Date() : date).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function detailObject(detail: string | undefined): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(detail ?? '');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function startFakeEventBridge(options: FakeEventBridgeOptions = {}): Promise<FakeEventBridge> {
  const random = options.random ?? Math.random;
  const region = options.region ?? 'us-east-1';
  const fake: FakeEventBridge = {
    endpoint: '',
    queueUrl: '',
    events: [],
    deadLetters: [],
    calls: { putEvents: 0, deadLetter: 0 },
    faults: { ...NO_FAULTS, ...options.faults },
    close: async () => {},
  };

  /** The error this entry fails with, if any: the knobs in turn. */
  function entryFault(entry: PutEventsEntry): string | undefined {
    const { faults } = fake;
    if (faults.failNextEntries > 0) {
      faults.failNextEntries--;
      return faults.entryError;
    }
    if (faults.entryFailureRate > 0 && random() < faults.entryFailureRate) return faults.entryError;
    return faults.failEntry?.(entry);
  }

  function putEvents(text: string, response: ServerResponse): void {
    const json = 'application/x-amz-json-1.1';
    fake.calls.putEvents++;
    const { faults } = fake;
    if (faults.failNextCalls > 0 || (faults.callFailureRate > 0 && random() < faults.callFailureRate)) {
      if (faults.failNextCalls > 0) faults.failNextCalls--;
      response.setHeader('x-amzn-errortype', faults.callError);
      answer(response, faults.callError === 'ThrottlingException' ? 400 : 500, { __type: faults.callError, message: 'simulated' }, json);
      return;
    }
    const entries = (JSON.parse(text) as { Entries?: PutEventsEntry[] }).Entries ?? [];
    if (entries.length < 1 || entries.length > MAX_ENTRIES) {
      answer(response, 400, { __type: 'ValidationException', message: `1 to ${MAX_ENTRIES} entries, not ${entries.length}` }, json);
      return;
    }
    const results = entries.map((entry) => {
      const detail = detailObject(entry.Detail);
      if (!entry.Source || !entry.DetailType) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required.' };
      if (!detail) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
      const bus = entry.EventBusName || 'default';
      if (options.busName && bus !== options.busName) {
        return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${bus} does not exist.` };
      }
      const fault = entryFault(entry);
      if (fault) return { ErrorCode: fault, ErrorMessage: 'simulated' };
      const event: DeliveredEvent = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: '000000000000',
        time: eventTime(entry.Time),
        region,
        resources: entry.Resources ?? [],
        detail,
      };
      fake.events.push(event);
      if (options.eventsFile) appendFileSync(options.eventsFile, `${JSON.stringify(event)}\n`);
      return { EventId: event.id };
    });
    answer(response, 200, { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results }, json);
  }

  function acceptDeadLetter(queueUrl: string, body: string): DeadLetter {
    const letter = { messageId: randomUUID(), queueUrl, body, receivedAt: new Date().toISOString() };
    fake.deadLetters.push(letter);
    if (options.deadLettersFile) appendFileSync(options.deadLettersFile, `${JSON.stringify(letter)}\n`);
    return letter;
  }

  function deadLetter(target: string, text: string, response: ServerResponse): void {
    const json = 'application/x-amz-json-1.0';
    fake.calls.deadLetter++;
    const { faults } = fake;
    if (faults.failNextDeadLetterCalls > 0 || (faults.deadLetterFailureRate > 0 && random() < faults.deadLetterFailureRate)) {
      if (faults.failNextDeadLetterCalls > 0) faults.failNextDeadLetterCalls--;
      answer(response, 500, { __type: 'com.amazonaws.sqs#InternalError', message: 'simulated' }, json);
      return;
    }
    if (target === 'AmazonSQS.SendMessage') {
      const { QueueUrl, MessageBody } = JSON.parse(text) as { QueueUrl: string; MessageBody: string };
      const letter = acceptDeadLetter(QueueUrl, MessageBody);
      answer(response, 200, { MessageId: letter.messageId, MD5OfMessageBody: md5(MessageBody) }, json);
      return;
    }
    const { QueueUrl, Entries = [] } = JSON.parse(text) as { QueueUrl: string; Entries?: { Id: string; MessageBody: string }[] };
    if (Entries.length < 1 || Entries.length > MAX_ENTRIES) {
      answer(response, 400, { __type: 'com.amazonaws.sqs#TooManyEntriesInBatchRequest', message: `${Entries.length} entries` }, json);
      return;
    }
    const Successful = Entries.map(({ Id, MessageBody }) => ({
      Id,
      MessageId: acceptDeadLetter(QueueUrl, MessageBody).messageId,
      MD5OfMessageBody: md5(MessageBody),
    }));
    answer(response, 200, { Successful, Failed: [] }, json);
  }

  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      try {
        if (target === 'AWSEvents.PutEvents') putEvents(text, response);
        else if (target === 'AmazonSQS.SendMessageBatch' || target === 'AmazonSQS.SendMessage') deadLetter(target, text, response);
        else answer(response, 400, { __type: 'UnknownOperationException', message: `not served here: ${target}` }, 'application/json');
      } catch (error) {
        answer(response, 400, { __type: 'SerializationException', message: (error as Error).message }, 'application/json');
      }
    });
  });
  Object.assign(fake, await listenOnLoopback(server));
  fake.queueUrl = `${fake.endpoint}/000000000000/wallet-auth-events-dead-letters`;
  return fake;
}
