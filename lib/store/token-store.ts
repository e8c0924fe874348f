import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { tokenKey } from './keys.js';
import type { Table } from './table.js';
import { putIfAbsent, type TransactItem } from './transactions.js';

export interface TokenRecord {
  user_id: string;
  user_type: number;
  created_at: number;
  /** Epoch seconds; also the table's TTL attribute. */
  expires_at: number;
}

/** The write that stores a new token, for use inside a transaction. */
export function tokenPut(table: Table, companyId: string, tokenHash: string, record: TokenRecord): TransactItem {
  return putIfAbsent(table, tokenKey(companyId, tokenHash), record);
}

/** Stores a new token on its own (a single conditional put). */
export async function putToken(table: Table, companyId: string, tokenHash: string, record: TokenRecord): Promise<void> {
  const { Put } = tokenPut(table, companyId, tokenHash, record);
  await table.client.send(new PutCommand(Put!));
}

/** The stored token with this hash, or undefined. Expiry is the caller's to check. */
export async function getToken(table: Table, companyId: string, tokenHash: string): Promise<TokenRecord | undefined> {
  const { Item } = await table.client.send(new GetCommand({ TableName: table.name, Key: tokenKey(companyId, tokenHash) }));
  return Item as TokenRecord | undefined;
}
