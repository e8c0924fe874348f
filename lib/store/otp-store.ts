import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.js';
import type { ItemKey } from './keys.js';
import type { Table } from './table.js';

export interface OtpRecord {
  /** HMAC of the code under the server's OTP key; the code itself is never stored. */
  code_hash: string;
  /** The version of the server secret the HMAC was made with. */
  key_version: number;
  /** Identifies one send, so a wrong try never counts against a newer code. */
  send_id: string;
  attempts: number;
  /** For a login code: the user it logs in. */
  user_id?: string | undefined;
  created_at: number;
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: number;
}

/** Stores a code, replacing any earlier one for the same key. */
export async function putOtp(table: Table, key: ItemKey, record: OtpRecord): Promise<void> {
  await table.client.send(new PutCommand({ TableName: table.name, Item: { ...key, ...record } }));
}

export type ConsumeResult = { consumed: true; record: OtpRecord } | { consumed: false; seen: OtpRecord | undefined };

/**
 * Deletes the code if, and only if, it matches, is unexpired and has tries left: one atomic
 * step, so of any number of concurrent right answers exactly one consumes it.
 */
export async function consumeOtp(
  table: Table,
  key: ItemKey,
  codeHash: string,
  nowSeconds: number,
  maxAttempts: number,
): Promise<ConsumeResult> {
  const outcome = await conditionalWrite(
    table.client.send(
      new DeleteCommand({
        TableName: table.name,
        Key: key,
        ConditionExpression: 'code_hash = :hash AND expires_at > :now AND attempts < :max',
        ExpressionAttributeValues: { ':hash': codeHash, ':now': nowSeconds, ':max': maxAttempts },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (!outcome.written) return { consumed: false, seen: outcome.seen as OtpRecord | undefined };
  return { consumed: true, record: outcome.result.Attributes as OtpRecord };
}

/**
 * Counts one wrong try against this very send, while tries are left. Returns the tries now
 * counted, or undefined when the code was replaced, consumed or already dead.
 */
export async function countWrongTry(table: Table, key: ItemKey, sendId: string, maxAttempts: number): Promise<number | undefined> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: 'send_id = :send AND attempts < :max',
        ExpressionAttributeValues: { ':one': 1, ':send': sendId, ':max': maxAttempts },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  return outcome.written ? (outcome.result.Attributes?.attempts as number) : undefined;
}
