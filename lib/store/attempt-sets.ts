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
  /**
   * Taken in the window that opened at windowStart; `alone` when no other try is in it; `stampBefore`,
   * the window's latest try as it stood before this one (none: the window had none), which a try
   * given back puts back.
   */
  | ({ taken: true; windowStart: number } & Omit<TakenTry, 'id'>)
  /** Refused: the window holds its most tries until then (epoch seconds). */
  | { taken: false; lockedUntil: number };

/** A window's latest try: when (the eraser dates a window by it) and which attempt took it. */
export interface TryStamp {
  at: number;
  by?: string;
}

interface TriesWindow {
  window_start: number;
  last_try_at?: number;
  last_try_by?: string;
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
  for (let round = 0; ; round++) {
    const counted = await conditionalWrite(
      table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: key,
          UpdateExpression: `SET window_start = if_not_exists(window_start, :now), expires_at = if_not_exists(expires_at, :expires), ${STAMP_TRY} ADD tries :attempt`,
          ConditionExpression: `(attribute_not_exists(window_start) OR window_start > :windowAgo) AND ${TRY_ROOM_LEFT}`,
          ExpressionAttributeValues: { ...tryValues(id, maxTries), ':now': now, ':expires': now + windowSeconds, ':windowAgo': windowAgo },
          // The window as it was: its stamp is what giving this try back puts back.
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    if (counted.written) {
      const before = counted.result.Attributes as TriesWindow | undefined;
      const { at, alone, stampBefore } = takenFrom({ id, at: now }, before as Record<string, unknown> | undefined);
      return { taken: true, windowStart: before?.window_start ?? now, at, alone, ...(stampBefore ? { stampBefore } : {}) };
    }
    const seen = counted.seen as TriesWindow | undefined;
    if (seen && seen.window_start > windowAgo) return { taken: false, lockedUntil: seen.window_start + windowSeconds };
    // The window ran out: open a new one with this try, unless another attempt just did.
    const opened = await conditionalWrite(
      table.client.send(
        new PutCommand({
          TableName: table.name,
          Item: { ...key, window_start: now, tries: new Set([id]), expires_at: now + windowSeconds, last_try_at: now, last_try_by: id },
          ConditionExpression: 'window_start <= :windowAgo',
          ExpressionAttributeValues: { ':windowAgo': windowAgo },
        }),
      ),
    );
    if (opened.written) return { taken: true, windowStart: now, at: now, alone: true };
    if (round >= 2) throw new Error('the window of tries kept changing');
  }
}

/** A try as taken: when (its stamp), whether it was the only one, and the stamp it replaced (none: the item had none). */
export interface TakenTry {
  id: string;
  at: number;
  alone: boolean;
  stampBefore?: TryStamp;
}

/** The stamp a take sets; the old values it asks back (UPDATED_OLD) are what giving it back needs. */
export const STAMP_TRY = 'last_try_at = :now, last_try_by = :id';

/** A take's answer (UPDATED_OLD or ALL_OLD): the stamp it replaced, and whether it is the only try now. */
export function takenFrom({ id, at: takenAt }: { id: string; at: number }, before: Record<string, unknown> | undefined): TakenTry {
  const others = [...((before?.tries as Set<string> | undefined) ?? [])].filter((other) => other !== id);
  const at = before?.last_try_at;
  const stampBefore = typeof at === 'number' ? { at, by: before?.last_try_by as string | undefined } : undefined;
  return { id, at: takenAt, alone: others.length === 0, stampBefore };
}

/**
 * Gives a try back (the guess was right, or nothing was compared) so that it leaves no trace, while
 * `guard` holds (the item is still the one it was taken in): an item left with no try in it goes
 * when `deleteEmpty` says so (and its `unless` does not hold); else, while this try is still the
 * item's latest, the stamp before it is put back (a later try's stamp stays); else only the try goes.
 */
export async function giveTryBack(
  table: Table,
  key: ItemKey,
  taken: TakenTry,
  guard: { expression: string; values: Record<string, unknown>; deleteEmpty?: { unless?: string } },
): Promise<void> {
  // This try is still the latest, as it set it: a late copy of this give-back, landing after the same
  // attempt (a retry with its Idempotency-Key) took a try again in a later second, takes nothing.
  const ownLatest = 'last_try_by = :id AND last_try_at = :takenAt';
  const values = { ':attempt': new Set([taken.id]), ':id': taken.id, ':takenAt': taken.at, ...guard.values };
  if (taken.alone && guard.deleteEmpty) {
    const removed = await conditionalWrite(
      table.client.send(
        new DeleteCommand({
          TableName: table.name,
          Key: key,
          ConditionExpression: [
            guard.expression,
            ownLatest,
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
  const { stampBefore } = taken;
  const restore = [
    ...(stampBefore ? ['last_try_at = :stampAt'] : []),
    ...(stampBefore?.by === undefined ? [] : ['last_try_by = :stampBy']),
  ];
  const unset = [...(stampBefore ? [] : ['last_try_at']), ...(stampBefore?.by === undefined ? ['last_try_by'] : [])];
  const restored = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: [
          'DELETE tries :attempt',
          restore.length ? `SET ${restore.join(', ')}` : '',
          unset.length ? `REMOVE ${unset.join(', ')}` : '',
        ].join(' '),
        ConditionExpression: `${guard.expression} AND ${ownLatest}`,
        ExpressionAttributeValues: {
          ...values,
          ...(stampBefore ? { ':stampAt': stampBefore.at } : {}),
          ...(stampBefore?.by === undefined ? {} : { ':stampBy': stampBefore.by }),
        },
      }),
    ),
  );
  if (restored.written) return;
  await removeTry(table, key, taken.id, { expression: guard.expression, values: guard.values });
}

/**
 * Gives a try back in the window it was taken in (giveTryBack): a window left empty goes, unless
 * `keepEmpty`.
 */
export function giveWindowedTryBack(
  table: Table,
  key: ItemKey,
  taken: TakenTry & { windowStart: number },
  { keepEmpty = false } = {},
): Promise<void> {
  return giveTryBack(table, key, taken, {
    expression: 'window_start = :windowStart',
    values: { ':windowStart': taken.windowStart },
    ...(keepEmpty ? {} : { deleteEmpty: {} }),
  });
}
