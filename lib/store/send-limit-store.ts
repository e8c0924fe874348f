import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HOUR_SECONDS as HOUR } from '../clock.js';
import { giveWindowedTryBack, type TakenTry, takeWindowedTry, type WindowedTry } from './attempt-sets.js';
import { conditionalWrite } from './conditional-write.js';
import { type ItemKey, phoneFailuresKey, phoneSendLimitKey } from './keys.js';
import type { Table } from './table.js';

// Send counters, changed only by conditional updates: a limit holds however many sends race.

/** One phone's sends: an hour-long window opened by its first send, and the latest send. */
interface PhoneSends {
  window_start: number;
  window_count: number;
  last_sent_at: number;
  /** An hour after the latest send (its TTL). */
  expires_at?: number;
}

export type PhoneSendResult =
  /** Counted; `before` is what to put back should the send fail, `sendId` the count's own mark on the counters. */
  | { counted: true; before: PhoneSends | undefined; sendId: string }
  /** Not counted; `seen` is the state that refused it. */
  | { counted: false; seen: PhoneSends | undefined };

async function conditionalUpdate(
  table: Table,
  key: ItemKey,
  update: string,
  condition: string,
  values: Record<string, unknown>,
): Promise<PhoneSendResult> {
  // The send's id goes in with it: a write the SDK retried after its answer was lost is refused
  // by the interval it set itself, and recognised here by its id as counted.
  const sendId = randomUUID();
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: `${update}, send_id = :sendId, previous_sent_at = if_not_exists(last_sent_at, :zero)`,
        ConditionExpression: condition,
        ExpressionAttributeValues: { ...values, ':sendId': sendId, ':zero': 0 },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (outcome.written) return { counted: true, before: outcome.result.Attributes as PhoneSends | undefined, sendId };
  const seen = outcome.seen as (PhoneSends & { send_id?: string; previous_sent_at?: number }) | undefined;
  if (seen?.send_id !== sendId) return { counted: false, seen };
  // Counted by an attempt whose answer was lost: what it replaced, as far as a release needs it
  // (a send that opened its window replaced nothing still in force).
  const before =
    seen.window_count > 1
      ? {
          window_start: seen.window_start,
          window_count: seen.window_count - 1,
          last_sent_at: seen.previous_sent_at ?? 0,
          // As that send left it: a counter put back without it would never expire.
          expires_at: (seen.previous_sent_at ?? 0) + HOUR,
        }
      : undefined;
  return { counted: true, before, sendId };
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

/**
 * Undoes a counted send whose SMS failed, unless a later send has changed the counters since: only
 * while they still carry the send's id. Not its second: after the undo a new send may come in the
 * same second, and a late copy of the undo would take that one back too.
 */
export async function uncountPhoneSend(table: Table, companyId: string, phone: string, sendId: string, before: PhoneSends | undefined) {
  const key = phoneSendLimitKey(companyId, phone);
  const unchanged = { ConditionExpression: 'send_id = :sendId', ExpressionAttributeValues: { ':sendId': sendId } };
  await conditionalWrite(
    before
      ? table.client.send(new PutCommand({ TableName: table.name, Item: { ...before, ...key }, ...unchanged }))
      : table.client.send(new DeleteCommand({ TableName: table.name, Key: key, ...unchanged })),
  );
}

/**
 * Counts one more in a fixed window (a clock hour, a 5-minute slot): one conditional ADD, so no
 * race passes the ceiling. False when the ceiling is reached. The item expires with its window.
 * The count's id is kept as the latest: a write the SDK retried after its answer was lost is
 * refused by that marker and recognised as counted, so it is not counted twice.
 */
export async function countInWindow(table: Table, key: ItemKey, attribute: string, ceiling: number, expiresAt: number): Promise<boolean> {
  const countId = randomUUID();
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD #count :one SET expires_at = :expires, #latest = :id',
        ConditionExpression: '(attribute_not_exists(#count) OR #count < :ceiling) AND (attribute_not_exists(#latest) OR #latest <> :id)',
        ExpressionAttributeNames: { '#count': attribute, '#latest': `${attribute}_latest` },
        ExpressionAttributeValues: { ':one': 1, ':ceiling': ceiling, ':expires': expiresAt, ':id': countId },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  return outcome.written || outcome.seen?.[`${attribute}_latest`] === countId;
}

/**
 * Gives back one count of a fixed window (a send that did not happen). Its id joins the window's
 * give-backs (a string set), so a write the SDK retried after its answer was lost, or a copy of it
 * that lands late, after other counts, gives back nothing twice.
 */
export async function uncountInWindow(table: Table, key: ItemKey, attribute: string): Promise<void> {
  const giveBackId = randomUUID();
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD #count :minusOne, #givenBack :ids',
        ConditionExpression: '#count > :zero AND NOT contains(#givenBack, :id)',
        ExpressionAttributeNames: { '#count': attribute, '#givenBack': `${attribute}_given_back` },
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0, ':id': giveBackId, ':ids': new Set([giveBackId]) },
      }),
    ),
  );
}

/**
 * One phone's wrong codes in a window opened by the first: the attempts that took a try (a string
 * set of attempt ids, so a retried write counts nothing twice). A try is taken before a code is
 * compared and given back when the code was right or nothing was compared, so the set holds the
 * wrong codes and the attempts still in flight.
 */
interface PhoneFailures {
  window_start: number;
  tries?: Set<string> | undefined;
}

export async function getPhoneFailures(table: Table, companyId: string, phone: string): Promise<PhoneFailures | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: phoneFailuresKey(companyId, phone), ConsistentRead: true }),
  );
  return Item as PhoneFailures | undefined;
}

/**
 * Takes one try for a phone before a code is compared: in its open window while it has room (one
 * conditional update), or in a window it opens when the last one ran out (attempt-sets.ts).
 */
export function takePhoneTry(
  table: Table,
  companyId: string,
  phone: string,
  attempt: { id: string; now: number; windowSeconds: number; maxTries: number },
): Promise<WindowedTry> {
  return takeWindowedTry(table, phoneFailuresKey(companyId, phone), attempt);
}

/** Gives a phone's try back (the code was right, or nothing was compared), in the window it was taken in. */
export function givePhoneTryBack(table: Table, companyId: string, phone: string, taken: TakenTry & { windowStart: number }): Promise<void> {
  return giveWindowedTryBack(table, phoneFailuresKey(companyId, phone), taken);
}
