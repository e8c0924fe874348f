import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import type { ItemKey } from './keys.js';
import type { Table } from './table.js';

// The records behind Idempotency-Key (contract 3.10): one per (company, token, key), taken by the
// first request before it does anything, and holding its sealed answer once it has one.

export interface IdempotencyRecord {
  /** Hash of the request's route and body: the same key with another request is refused, for the record's whole life. */
  fingerprint: string;
  /** released: its request ended with nothing to replay (a 5xx); only the same request may run again. */
  state: 'in_progress' | 'done' | 'released';
  /** The invocation that holds the record: a write the SDK retried finds itself here. */
  held_by: string;
  /** While in progress, when (Date.now() ms) the owner's deadline has passed and another may take over. */
  locked_until: number;
  /** The answer, sealed (lib/secrets/sealed-answers.ts), once done. */
  answer?: string | undefined;
  /** The server secret's version the answer was sealed with. */
  key_version?: number | undefined;
  /** Epoch seconds (the table's TTL): 24 hours after the first request. */
  expires_at: number;
}

export type IdempotencyClaim = { taken: true } | { taken: false; seen: IdempotencyRecord };

/**
 * Takes the record for a first request: when there is none, when the one there has expired, or
 * when the owner is this invocation and the record still in progress (its earlier write was applied
 * and the answer lost; a copy of the claim that lands after the answer was stored changes nothing); and for
 * the same request only (its fingerprint), when the one before ran past its deadline without an
 * answer or was released. A key stays bound to its first body while its record lives: what that
 * body spent (a PIN try, a nonce, a code) is never run again under another. Otherwise says what is there.
 */
export async function claimIdempotencyRecord(
  table: Table,
  key: ItemKey,
  claim: { fingerprint: string; owner: string; lockedUntil: number; expiresAt: number; nowMs: number },
): Promise<IdempotencyClaim> {
  const record: IdempotencyRecord = {
    fingerprint: claim.fingerprint,
    state: 'in_progress',
    held_by: claim.owner,
    locked_until: claim.lockedUntil,
    expires_at: claim.expiresAt,
  };
  const outcome = await conditionalWrite(
    table.client.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...key, ...record },
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at <= :nowSeconds OR (held_by = :owner AND #state = :inProgress) OR ' +
          '(fingerprint = :fingerprint AND (#state = :released OR (#state = :inProgress AND locked_until <= :nowMs)))',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':nowSeconds': Math.floor(claim.nowMs / 1000),
          ':nowMs': claim.nowMs,
          ':owner': claim.owner,
          ':inProgress': 'in_progress',
          ':released': 'released',
          ':fingerprint': claim.fingerprint,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (outcome.written) return { taken: true };
  if (!outcome.seen) throw new Error('the idempotency record was refused with no item to show');
  return { taken: false, seen: outcome.seen as unknown as IdempotencyRecord };
}

/** Stores the owner's sealed answer; a no-op when another has taken the record over since (a retry is idempotent). */
export async function completeIdempotencyRecord(
  table: Table,
  key: ItemKey,
  owner: string,
  answer: { sealed: string; keyVersion: number },
): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET #state = :done, answer = :answer, key_version = :version REMOVE locked_until',
        ConditionExpression: 'held_by = :owner',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':done': 'done', ':answer': answer.sealed, ':version': answer.keyVersion, ':owner': owner },
      }),
    ),
  );
}

/**
 * Gives the record up while still in progress (the request ended with nothing to replay): the same
 * request sent again runs afresh; another with this key is still refused (its fingerprint stays).
 */
export async function releaseIdempotencyRecord(table: Table, key: ItemKey, owner: string): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET #state = :released REMOVE locked_until',
        ConditionExpression: 'held_by = :owner AND #state = :inProgress',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':owner': owner, ':inProgress': 'in_progress', ':released': 'released' },
      }),
    ),
  );
}

/** The record of a key, as stored (an expired one included: the caller judges expires_at), read strongly consistently. */
export async function getIdempotencyRecord(table: Table, key: ItemKey): Promise<IdempotencyRecord | undefined> {
  const { Item } = await table.client.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }));
  return Item as IdempotencyRecord | undefined;
}
