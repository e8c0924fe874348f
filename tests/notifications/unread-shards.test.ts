// Two notices in one transaction (a recovery's approval: notices 9 and 8; support's cancel: 10 and 8)
// must add to different shards of the unread count: DynamoDB refuses a transaction that writes one
// item twice (ValidationException, a 500), which the chaos run met once in ten approvals.
import { describe, expect, it } from 'vitest';
import { distinctUnreadShards } from '../../lib/store/notification-store.js';

describe('distinct unread shards', () => {
  it('are distinct, and each a shard', () => {
    for (let round = 0; round < 200; round++) {
      const shards = distinctUnreadShards(2);
      expect(shards).toHaveLength(2);
      expect(new Set(shards).size).toBe(2);
      for (const shard of shards) expect(shard).toBeGreaterThanOrEqual(0);
    }
  });
});
