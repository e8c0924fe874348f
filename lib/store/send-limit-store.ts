import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HOUR_SECONDS as HOUR } from '../clock.js';
import { conditionalWrite } from './conditional-write.js';
import { type ItemKey, phoneFailuresKey, phoneSendLimitKey } from './keys.js';
import type { Table } from './table.js';

// Send counters, changed only by conditional updates: a limit holds however many sends race.

/** One phone's sends: an hour-long window opened by its first send, and the latest send. */
export interface PhoneSends {
  window_start: number;
  window_count: number;
  last_sent_at: number;
}

export type PhoneSendResult =
  /** Counted; `before` is what to put back should the send fail. */
  | { counted: true; before: PhoneSends | undefined }
  /** Not counted; `seen` is the state that refused it. */
  | { counted: false; seen: PhoneSends | undefined };

async function conditionalUpdate(
  table: Table,
  key: ItemKey,
  update: string,
  condition: string,
  values: Record<string, unknown>,
): Promise<PhoneSendResult> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (!outcome.written) return { counted: false, seen: outcome.seen as PhoneSends | undefined };
  return { counted: true, before: outcome.result.Attributes as PhoneSends | undefined };
}

/** Counts a send that opens a new window: the phone has no open window and no recent send. */
export function countSendInNewWindow(table: Table, companyId: string, phone: string, now: number, intervalSeconds: number) {
  return conditionalUpdate(
    table,
    phoneSendLimitKey(companyId, phone),
    'SET window_start = :now, window_count = :one, last_sent_at = :now, expires_at = :expires',
    '(attribute_not_exists(window_start) OR window_start <= :hourAgo) AND ' +
      '(attribute_not_exists(last_sent_at) OR last_sent_at <= :intervalAgo)',
    { ':now': now, ':one': 1, ':expires': now + HOUR, ':hourAgo': now - HOUR, ':intervalAgo': now - intervalSeconds },
  );
}

/** Counts a send in the window opened at windowStart, while it has room and after the interval. */
export function countSendInWindow(
  table: Table,
  companyId: string,
  phone: string,
  windowStart: number,
  now: number,
  intervalSeconds: number,
  perHour: number,
) {
  return conditionalUpdate(
    table,
    phoneSendLimitKey(companyId, phone),
    'SET window_count = window_count + :one, last_sent_at = :now, expires_at = :expires',
    'window_start = :windowStart AND window_count < :max AND last_sent_at <= :intervalAgo',
    {
      ':one': 1,
      ':now': now,
      ':expires': now + HOUR,
      ':windowStart': windowStart,
      ':max': perHour,
      ':intervalAgo': now - intervalSeconds,
    },
  );
}

/** Undoes a counted send whose SMS failed, unless a later send has changed the counters since. */
export async function uncountPhoneSend(table: Table, companyId: string, phone: string, countedAt: number, before: PhoneSends | undefined) {
  const key = phoneSendLimitKey(companyId, phone);
  const unchanged = { ConditionExpression: 'last_sent_at = :countedAt', ExpressionAttributeValues: { ':countedAt': countedAt } };
  await conditionalWrite(
    before
      ? table.client.send(new PutCommand({ TableName: table.name, Item: { ...before, ...key }, ...unchanged }))
      : table.client.send(new DeleteCommand({ TableName: table.name, Key: key, ...unchanged })),
  );
}

/**
 * Counts one more in a fixed window (a clock hour, a 5-minute slot): one conditional ADD, so no
 * race passes the ceiling. False when the ceiling is reached. The item expires with its window.
 */
export async function countInWindow(table: Table, key: ItemKey, attribute: string, ceiling: number, expiresAt: number): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD #count :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :ceiling',
        ExpressionAttributeNames: { '#count': attribute },
        ExpressionAttributeValues: { ':one': 1, ':ceiling': ceiling, ':expires': expiresAt },
      }),
    ),
  );
  return outcome.written;
}

/** Gives back one count of a fixed window (a send that did not happen). */
export async function uncountInWindow(table: Table, key: ItemKey, attribute: string): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD #count :minusOne',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': attribute },
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    ),
  );
}

/** One phone's wrong codes: a window opened by the first one, and how many it holds. */
export interface PhoneFailures {
  window_start: number;
  failures: number;
}

export async function getPhoneFailures(table: Table, companyId: string, phone: string): Promise<PhoneFailures | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: phoneFailuresKey(companyId, phone), ConsistentRead: true }),
  );
  return Item as PhoneFailures | undefined;
}

/**
 * Counts a wrong code for a phone: in its open window, or in a window it opens (one request);
 * only a window that has run out needs a second one, which opens a new window now.
 */
export async function countPhoneFailure(table: Table, companyId: string, phone: string, now: number, windowSeconds: number): Promise<void> {
  const key = phoneFailuresKey(companyId, phone);
  for (let round = 0; round < 3; round++) {
    const counted = await conditionalWrite(
      table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: key,
          UpdateExpression:
            'SET window_start = if_not_exists(window_start, :now), expires_at = if_not_exists(expires_at, :expires) ADD failures :one',
          ConditionExpression: 'attribute_not_exists(window_start) OR window_start > :windowAgo',
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':expires': now + windowSeconds, ':windowAgo': now - windowSeconds },
        }),
      ),
    );
    if (counted.written) return;
    const opened = await conditionalWrite(
      table.client.send(
        new PutCommand({
          TableName: table.name,
          Item: { ...key, window_start: now, failures: 1, expires_at: now + windowSeconds },
          ConditionExpression: 'window_start <= :windowAgo',
          ExpressionAttributeValues: { ':windowAgo': now - windowSeconds },
        }),
      ),
    );
    if (opened.written) return;
    // Another wrong code opened a window meanwhile: count in it.
  }
}
