import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { smsPaymentsKey } from './keys.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// A user's SMS-strength payments in one currency (API contract 3.15, second reading): each an entry
// "<UNIX seconds>:<amount in ten-thousandths>", the last 24 hours' kept. A write replaces the entries
// only while the version it read is still the item's: the check of the sum and its record are one
// conditional write, never a read-then-write.

export interface SmsPayments {
  entries: string[];
  version: number;
}

export async function getSmsPayments(table: Table, companyId: string, userId: string, currency: string): Promise<SmsPayments> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.name, Key: smsPaymentsKey(companyId, userId, currency), ConsistentRead: true }),
  );
  return { entries: (Item?.entries as string[] | undefined) ?? [], version: (Item?.version as number | undefined) ?? 0 };
}

/** The write that records the window's entries, only while its version is the one read; the item lives as long as its newest entry counts. */
export function smsPaymentsPut(
  table: Table,
  target: { companyId: string; userId: string; currency: string },
  window: { entries: string[]; seenVersion: number; expiresAt: number },
): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: {
        ...smsPaymentsKey(target.companyId, target.userId, target.currency),
        entries: window.entries,
        version: window.seenVersion + 1,
        expires_at: window.expiresAt,
      },
      ConditionExpression: window.seenVersion === 0 ? 'attribute_not_exists(pk) OR version = :zero' : 'version = :seen',
      ExpressionAttributeValues: window.seenVersion === 0 ? { ':zero': 0 } : { ':seen': window.seenVersion },
    },
  };
}
