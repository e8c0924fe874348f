import { createHash, randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
