import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { removeTry, TRY_ROOM_LEFT, tryValues } from './attempt-sets.js';
import { conditionalWrite } from './conditional-write.js';
import type { ItemKey } from './keys.js';
import type { Table } from './table.js';

export interface OtpRecord {
  /** HMAC of the code under the server's OTP key; the code itself is never stored. */
  code_hash: string;
  /** The version of the server secret the HMAC was made with. */
  key_version: number;
  /** Identifies one send, so a try never counts against a newer code. */
  send_id: string;
  /**
   * The verification attempts that took a try against this code (a string set of attempt ids),
   * taken before the code is compared: its size is the tries spent. A set, so that a write the
   * SDK retried after its answer was lost adds the same id again and counts nothing twice.
   */
  tries?: Set<string> | undefined;
  /** The attempt that used the code up: kept (not deleted), so a retry of that same write succeeds again. */
  consumed_by?: string | undefined;
  /** For a login code: the user it logs in. */
  user_id?: string | undefined;
  /** For a login code to the new number of a user's pending phone change: that change, which the login completes. */
  pending_change_id?: string | undefined;
  created_at: number;
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: number;
}

/**
 * Stores a code, replacing an earlier one for the same key. A copy of the put that lands late,
 * after the code was tried or used, changes nothing: it finds its own send there (or one stored in
 * a later second), which it does not replace.
 */
export async function putOtp(table: Table, key: ItemKey, record: OtpRecord): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...key, ...record },
        ConditionExpression: 'attribute_not_exists(send_id) OR (send_id <> :send AND created_at <= :created)',
        ExpressionAttributeValues: { ':send': record.send_id, ':created': record.created_at },
      }),
    ),
  );
}

/** Deletes the code this send stored, and no later one; nothing when it is gone already. */
export async function deleteOtp(table: Table, key: ItemKey, sendId: string): Promise<void> {
  await conditionalWrite(
    table.client.send(
      new DeleteCommand({
        TableName: table.name,
        Key: key,
        ConditionExpression: 'send_id = :send',
        ExpressionAttributeValues: { ':send': sendId },
      }),
    ),
  );
}

type CodeTry = { taken: true; record: OtpRecord } | { taken: false; seen: OtpRecord | undefined };

/**
 * Takes one try against the live code for an attempt, before anything is compared (a code this
 * same attempt used up counts as live for it: its first run's answer was lost): one
 * conditional update, so however many attempts arrive at once, at most maxTries are taken. Refused
 * when there is no live code (none, used, expired) or its tries are spent; `seen` says which.
 */
export async function takeCodeTry(table: Table, key: ItemKey, attemptId: string, nowSeconds: number, maxTries: number): Promise<CodeTry> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD tries :attempt',
        // consumed_by = :id: a code this same attempt used up is still live for it (tryValues names :id).
        ConditionExpression: `attribute_exists(code_hash) AND (attribute_not_exists(consumed_by) OR consumed_by = :id) AND expires_at > :now AND ${TRY_ROOM_LEFT}`,
        ExpressionAttributeValues: { ...tryValues(attemptId, maxTries), ':now': nowSeconds },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (!outcome.written) return { taken: false, seen: outcome.seen as OtpRecord | undefined };
  return { taken: true, record: outcome.result.Attributes as OtpRecord };
}

/** Gives a try back that compared nothing (the attempt was refused for another reason), while that send is live. */
export async function giveCodeTryBack(table: Table, key: ItemKey, sendId: string, attemptId: string): Promise<void> {
  await removeTry(table, key, attemptId, { expression: 'send_id = :send', values: { ':send': sendId } });
}

/**
 * Uses the code up for the attempt that matched it: true when this attempt holds it (a retry of
 * the same write included), false when another attempt used it first or a new send replaced it.
 */
export async function consumeCode(table: Table, key: ItemKey, sendId: string, attemptId: string): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET consumed_by = :attempt',
        ConditionExpression: 'send_id = :send AND (attribute_not_exists(consumed_by) OR consumed_by = :attempt)',
        ExpressionAttributeValues: { ':attempt': attemptId, ':send': sendId },
      }),
    ),
  );
  return outcome.written;
}
