// npm run simulate's model (scripts/simulate/model.ts): the same figures for a seed, and each hot
// item's ceiling raised by what issue 24 changed.
import { describe, expect, it } from 'vitest';
import { busiestShardWrites, conflictShare, generator, LIMITS, simulate, smsPeak } from '../../scripts/simulate/model.js';

describe('the scale simulation', () => {
  const models = Object.fromEntries(simulate(24).map((model) => [model.item.split(' ')[0], model]));

  it('repeats its figures for a seed', () => {
    expect(simulate(24)).toEqual(simulate(24));
  });

  it('raises the company counter about S-fold: one item near 1,000 sends/s, S shards near S × 1,000', () => {
    const { before, after } = models.company!;
    expect(before.saturatesAt).toBeGreaterThan(900);
    expect(before.saturatesAt).toBeLessThanOrEqual(1000);
    expect(after.saturatesAt).toBeGreaterThan(0.9 * LIMITS.companySendShards * before.saturatesAt);
  });

  it("takes the referral count's conflicts from the referrer's one item to N shards", () => {
    const random = generator(1);
    const rate = 100_000 / 3600;
    expect(conflictShare(random, rate, 1, LIMITS.transactionWindowMs)).toBeGreaterThan(0.3);
    expect(conflictShare(random, rate, LIMITS.referralCountShards, LIMITS.transactionWindowMs)).toBeLessThan(0.1);
    expect(models["referrer's"]!.after.saturatesAt).toBeGreaterThan(5 * models["referrer's"]!.before.saturatesAt);
  });

  it('spreads sends evenly: the busiest shard near rate / S', () => {
    expect(busiestShardWrites(generator(2), 5000, 10)).toBeLessThan(600);
  });

  it('takes SMS out of the request: a peak over the pool refuses sends before, and is queued and sent in time after', () => {
    const random = generator(3);
    const pool = 1000;
    const over = smsPeak(random, 1.2 * pool, pool);
    expect(over.refusedShare).toBeGreaterThan(0.1);
    // Queued: the backlog of 10 minutes at 1.2x drains before any code dies.
    expect(over.expiredShare).toBe(0);
    expect(over.longestWaitSeconds).toBeGreaterThan(60);
    expect(over.longestWaitSeconds).toBeLessThanOrEqual(LIMITS.codeTtlSeconds);
    // At 2x, the backlog outlives the codes: the oldest are dropped, never sent late.
    expect(smsPeak(random, 2 * pool, pool).expiredShare).toBeGreaterThan(0);
    const { before, after } = models.SMS!;
    expect(after.saturatesAt).toBeGreaterThan(1.4 * before.saturatesAt);
  });
});
