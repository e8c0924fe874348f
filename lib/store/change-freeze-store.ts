import { changeFreezeKey } from './keys.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// The freeze staff put on a user's held changes (API contract 3.15, second reading; lib/pending-changes/staff-freeze.ts).

/** Freezes held changes until `until` (UNIX s); a later freeze moves the end later. The item is also its TTL. */
export function changeFreezePut(table: Table, companyId: string, userId: string, freeze: { now: number; until: number }): TransactItem {
  return {
    Put: {
      TableName: table.name,
      Item: { ...changeFreezeKey(companyId, userId), frozen_at: freeze.now, frozen_until: freeze.until, expires_at: freeze.until },
    },
  };
}

/** Holds only while no freeze runs at `now` (an expired one counts as none: TTL deletes late). */
export function noChangeFreeze(table: Table, companyId: string, userId: string, now: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: table.name,
      Key: changeFreezeKey(companyId, userId),
      ConditionExpression: 'attribute_not_exists(pk) OR frozen_until <= :now',
      ExpressionAttributeValues: { ':now': now },
    },
  };
}
