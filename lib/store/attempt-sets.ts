import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import type { ItemKey } from './keys.js';
import type { Table } from './table.js';

// How tries are counted wherever a guess must be counted before it is compared (a code's tries,
// a phone's wrong codes, a PIN's): the attempt's id joins a string set `tries` by a conditional
// ADD, refused once the set is full. A set, so that a write the SDK retried after its answer was
// lost adds the same id again and counts nothing twice; its size is the count.

/**
 * An attempt's id. A request sent again with its Idempotency-Key and the same body is the same
 * attempt (its ref names both): what its first run took before failing (a try, a nonce, a code)
 * is still its own, so the retry counts nothing twice and is not refused for what it did itself.
 * The same key with another body is another attempt, even once the key's record is gone. Else a fresh id.
 */
export function attemptIdOf(idempotencyRef: string | undefined): string {
  return idempotencyRef
    ? createHash('sha256').update(idempotencyRef).digest('base64url').slice(0, 16)
    : randomBytes(12).toString('base64url');
}

/** The condition that lets an attempt take a try: room left, or the attempt is already counted (a retry). */
export const TRY_ROOM_LEFT = '(attribute_not_exists(tries) OR size(tries) < :max OR contains(tries, :id))';

/** The values TRY_ROOM_LEFT and `ADD tries :attempt` name. */
export function tryValues(attemptId: string, maxTries: number): Record<string, unknown> {
  return { ':attempt': new Set([attemptId]), ':id': attemptId, ':max': maxTries };
}

/** Takes an attempt's try back out of the set while `condition` still holds (best left unchanged otherwise). */
export async function removeTry(
  table: Table,
  key: ItemKey,
  attemptId: string,
  condition: { expression: string; values: Record<string, unknown> },
): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'DELETE tries :attempt',
        ConditionExpression: condition.expression,
        ExpressionAttributeValues: { ':attempt': new Set([attemptId]), ...condition.values },
      }),
    ),
  );
}

/**
 * A try in a window of tries: a count of wrong guesses over a span of time (a phone's wrong codes in
 * 24 hours, a user's wrong PINs in 24 hours). The window opens with its first try and holds at most
 * maxTries until it runs out.
 */
export type WindowedTry =
  /** Taken in the window that opened at windowStart (TakenTry: how to give it back). */
  | ({ taken: true; windowStart: number } & Omit<TakenTry, 'id'>)
  /** Refused: the window holds its most tries until then (epoch seconds). */
  | { taken: false; lockedUntil: number };

/**
 * An item's latest try: when (the eraser dates a phone's window by it, a PIN tally's lock reads it)
 * and which take set it (`by`: the attempt's id, a dot, and a part of that take's own, so two takes
 * of one attempt, a request sent again with its Idempotency-Key, differ).
 */
export interface TryStamp {
  at: number;
  by?: string;
}

/** A try as taken: its own stamp, the tries in the item with it (1: it is alone), and the stamp it replaced. */
export interface TakenTry {
  id: string;
  stamp: Required<TryStamp>;
  tries: number;
  /**
   * The item's stamp before this take, which giving it back puts back: none when the item had none;
   * 'unknown' when the take was retried after its answer was lost, so that what it read back was
   * its own first copy's.
   */
  stampBefore?: TryStamp | 'unknown';
}

/** The stamp of a take by an attempt, now. */
export function newTakeStamp(attemptId: string, now: number): Required<TryStamp> {
  return { at: now, by: `${attemptId}.${randomBytes(6).toString('base64url')}` };
}

/** The update a take makes to stamp the item, and its values. */
export const STAMP_TRY = 'last_try_at = :takeAt, last_try_by = :takeBy';
export const stampValues = (stamp: Required<TryStamp>) => ({ ':takeAt': stamp.at, ':takeBy': stamp.by });

/** What a take read back of the item as it was (ReturnValues ALL_OLD), as a TakenTry. */
export function takenFrom(id: string, stamp: Required<TryStamp>, before: Record<string, unknown> | undefined): TakenTry {
  const tries = new Set([...((before?.tries as Set<string> | undefined) ?? []), id]).size;
  const at = before?.last_try_at;
  const by = before?.last_try_by as string | undefined;
  const stampBefore = by === stamp.by ? 'unknown' : typeof at === 'number' ? { at, by } : undefined;
  return { id, stamp, tries, ...(stampBefore ? { stampBefore } : {}) };
}

interface TriesWindow {
  window_start: number;
  tries?: Set<string> | undefined;
}

/**
 * Takes one try before a guess is compared: in the open window while it has room (one conditional
 * update), or in a window it opens when the last one ran out.
 */
export async function takeWindowedTry(
  table: Table,
  key: ItemKey,
  attempt: { id: string; now: number; windowSeconds: number; maxTries: number },
): Promise<WindowedTry> {
  const { id, now, windowSeconds, maxTries } = attempt;
  const windowAgo = now - windowSeconds;
  const stamp = newTakeStamp(id, now);
  for (let round = 0; ; round++) {
    const counted = await conditionalWrite(
      table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: key,
          UpdateExpression: `SET window_start = if_not_exists(window_start, :now), expires_at = if_not_exists(expires_at, :expires), ${STAMP_TRY} ADD tries :attempt`,
          ConditionExpression: `(attribute_not_exists(window_start) OR window_start > :windowAgo) AND ${TRY_ROOM_LEFT}`,
          ExpressionAttributeValues: {
            ...tryValues(id, maxTries),
            ...stampValues(stamp),
            ':now': now,
            ':expires': now + windowSeconds,
            ':windowAgo': windowAgo,
          },
          // The window as it was: its stamp is what giving this try back puts back.
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    if (counted.written) {
      const before = counted.result.Attributes as (TriesWindow & Record<string, unknown>) | undefined;
      return { taken: true, windowStart: before?.window_start ?? now, ...takenFrom(id, stamp, before) };
    }
    const seen = counted.seen as TriesWindow | undefined;
    if (seen && seen.window_start > windowAgo) return { taken: false, lockedUntil: seen.window_start + windowSeconds };
    // The window ran out: open a new one with this try, unless another attempt just did.
    const opened = await conditionalWrite(
      table.client.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            ...key,
            window_start: now,
            tries: new Set([id]),
            expires_at: now + windowSeconds,
            last_try_at: stamp.at,
            last_try_by: stamp.by,
          },
          ConditionExpression: 'window_start <= :windowAgo',
          ExpressionAttributeValues: { ':windowAgo': windowAgo },
        }),
      ),
    );
    if (opened.written) return { taken: true, windowStart: now, stamp, tries: 1 };
    if (round >= 2) throw new Error('the window of tries kept changing');
  }
}

/**
 * Gives a try back (the guess was right, or nothing was compared) so that it leaves no trace, while
 * `guard` holds (the item is still the one it was taken in): an item left with no try in it goes
 * when `deleteEmpty` says so (and its `unless` does not hold); else, while the item's stamp is still
 * this take's, the stamp before it is put back; else only the try goes, unless another take of the
 * same attempt stamped it since (that take is counting).
 */
export async function giveTryBack(
  table: Table,
  key: ItemKey,
  taken: TakenTry,
  guard: { expression: string; values: Record<string, unknown>; deleteEmpty?: { unless?: string } },
): Promise<void> {
  // Conditioned on this take's own stamp, no copy of these writes that lands late, after the same
  // attempt (a request sent again with its Idempotency-Key) took a try again, takes that try.
  const ownStamp = 'last_try_by = :takeBy';
  const values = { ':attempt': new Set([taken.id]), ':takeBy': taken.stamp.by, ...guard.values };
  if (taken.tries === 1 && guard.deleteEmpty) {
    const removed = await conditionalWrite(
      table.client.send(
        new DeleteCommand({
          TableName: table.name,
          Key: key,
          ConditionExpression: [
            guard.expression,
            ownStamp,
            'tries = :attempt',
            ...(guard.deleteEmpty.unless ? [`NOT ${guard.deleteEmpty.unless}`] : []),
          ].join(' AND '),
          ExpressionAttributeValues: values,
        }),
      ),
    );
    if (removed.written) return;
    // Another try joined it meanwhile: take out this one only.
  }
  const restored = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        ...stampPutBack(taken.stampBefore),
        ConditionExpression: `${guard.expression} AND ${ownStamp}`,
        ExpressionAttributeValues: { ...values, ...stampPutBackValues(taken.stampBefore) },
      }),
    ),
  );
  if (restored.written) return;
  await removeTry(table, key, taken.id, {
    expression: `${guard.expression} AND (attribute_not_exists(last_try_by) OR NOT begins_with(last_try_by, :attemptStamps))`,
    values: { ...guard.values, ':attemptStamps': `${taken.id}.` },
  });
}

/** The update that takes a try out and puts the stamp before it back (an unknown one stays as it is). */
function stampPutBack(before: TakenTry['stampBefore']): { UpdateExpression: string } {
  if (before === 'unknown') return { UpdateExpression: 'DELETE tries :attempt' };
  const set = [...(before ? ['last_try_at = :beforeAt'] : []), ...(before?.by === undefined ? [] : ['last_try_by = :beforeBy'])];
  const remove = [...(before ? [] : ['last_try_at']), ...(before?.by === undefined ? ['last_try_by'] : [])];
  return {
    UpdateExpression: [
      'DELETE tries :attempt',
      set.length ? `SET ${set.join(', ')}` : '',
      remove.length ? `REMOVE ${remove.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
  };
}

function stampPutBackValues(before: TakenTry['stampBefore']): Record<string, unknown> {
  if (before === undefined || before === 'unknown') return {};
  return { ':beforeAt': before.at, ...(before.by === undefined ? {} : { ':beforeBy': before.by }) };
}

/** Gives a try back in the window it was taken in (giveTryBack): a window left empty goes. */
export function giveWindowedTryBack(table: Table, key: ItemKey, taken: TakenTry & { windowStart: number }): Promise<void> {
  return giveTryBack(table, key, taken, {
    expression: 'window_start = :windowStart',
    values: { ':windowStart': taken.windowStart },
    deleteEmpty: {},
  });
}
