import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import type { App } from '../app-context.js';
import { awsClient } from '../aws/clients.js';
import { type Publisher, publishRecords } from './publisher.js';
import { eventsOfRecord, type SessionLimits } from './stream-events.js';

// The events publisher (API contract 3.13): the table's stream in, the bus out.

/**
 * The publisher's parts, built once per container: its clients of EventBridge and of the
 * dead-letter queue. Undefined without a bus (EVENT_BUS_NAME): every batch then waits on the stream.
 */
export function eventPublisher(app: App): Publisher | undefined {
  const { busName, deadLetterQueueUrl, maxAttempts } = app.config.events;
  if (!busName) return undefined;
  return {
    events: awsClient(EventBridgeClient, app.config, 'events'),
    deadLetters: awsClient(SQSClient, app.config, 'events'),
    busName,
    deadLetterQueueUrl,
    maxAttempts,
    timer: app.timer,
    logger: app.logger,
    metrics: app.metrics,
  };
}

/** Publishes the events of a batch of stream records; answers the sequence number to hand again from, if any. */
export function publishStreamRecords(
  publisher: Publisher,
  limits: SessionLimits,
  records: DynamoDBRecord[],
  deadlineMs: number,
): Promise<string | undefined> {
  const withEvents = records.map((record) => ({
    sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
    events: eventsOfRecord(record, limits),
  }));
  return publishRecords(publisher, withEvents, deadlineMs);
}
