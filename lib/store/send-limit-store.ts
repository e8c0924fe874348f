import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HOUR_SECONDS as HOUR } from '../clock.js';
import { conditionalWrite } from './conditional-write.js';
import { companySendLimitKey, type ItemKey, phoneSendLimitKey } from './keys.js';
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

/** Counts one send of the company in this clock hour, unless the hour's ceiling is reached. */
export async function countCompanySend(table: Table, companyId: string, hour: number, ceiling: number): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: companySendLimitKey(companyId, hour),
        UpdateExpression: 'ADD sent :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(sent) OR sent < :ceiling',
        ExpressionAttributeValues: { ':one': 1, ':ceiling': ceiling, ':expires': (hour + 2) * HOUR },
      }),
    ),
  );
  return outcome.written;
}

export async function uncountCompanySend(table: Table, companyId: string, hour: number): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: companySendLimitKey(companyId, hour),
        UpdateExpression: 'ADD sent :minusOne',
        ConditionExpression: 'sent > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    ),
  );
}
