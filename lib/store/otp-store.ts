import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient, tableName } from './dynamo-client.js';
import type { ItemKey } from './keys.js';

export interface OtpRecord {
  /** HMAC of the code under the server's OTP key; the code itself is never stored. */
  code_hash: string;
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
export async function putOtp(key: ItemKey, record: OtpRecord): Promise<void> {
  await documentClient.send(new PutCommand({ TableName: tableName, Item: { ...key, ...record } }));
}

/** The stored record a failed condition saw, or undefined when there was none. */
function recordSeen(error: ConditionalCheckFailedException): OtpRecord | undefined {
  return error.Item ? (unmarshall(error.Item) as OtpRecord) : undefined;
}

export type ConsumeResult = { consumed: true; record: OtpRecord } | { consumed: false; seen: OtpRecord | undefined };

/**
 * Deletes the code if, and only if, it matches, is unexpired and has tries left: one atomic
 * step, so of any number of concurrent right answers exactly one consumes it.
 */
export async function consumeOtp(key: ItemKey, codeHash: string, nowSeconds: number, maxAttempts: number): Promise<ConsumeResult> {
  try {
    const { Attributes } = await documentClient.send(
      new DeleteCommand({
        TableName: tableName,
        Key: key,
        ConditionExpression: 'code_hash = :hash AND expires_at > :now AND attempts < :max',
        ExpressionAttributeValues: { ':hash': codeHash, ':now': nowSeconds, ':max': maxAttempts },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { consumed: true, record: Attributes as OtpRecord };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { consumed: false, seen: recordSeen(error) };
    throw error;
  }
}

/**
 * Counts one wrong try against this very send, while tries are left. Returns the tries now
 * counted, or undefined when the code was replaced, consumed or already dead.
 */
export async function countWrongTry(key: ItemKey, sendId: string, maxAttempts: number): Promise<number | undefined> {
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: 'send_id = :send AND attempts < :max',
        ExpressionAttributeValues: { ':one': 1, ':send': sendId, ':max': maxAttempts },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Attributes?.attempts as number;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}
