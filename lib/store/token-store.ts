import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo-client.js';
import { tokenKey } from './keys.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface TokenRecord {
  user_id: string;
  user_type: number;
  created_at: number;
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: number;
}

/** The write that stores a new token, for use inside a transaction. */
export function tokenPut(companyId: string, tokenHash: string, record: TokenRecord): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...tokenKey(companyId, tokenHash), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Stores a new token on its own (a single conditional put). */
export async function putToken(companyId: string, tokenHash: string, record: TokenRecord): Promise<void> {
  const { Put } = tokenPut(companyId, tokenHash, record);
  await documentClient.send(new PutCommand(Put!));
}

/** The stored token with this hash, or undefined. Expiry is the caller's to check. */
export async function getToken(companyId: string, tokenHash: string): Promise<TokenRecord | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: tokenKey(companyId, tokenHash) }),
  );
  return Item as TokenRecord | undefined;
}
