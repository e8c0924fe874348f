// The padding that keeps login_phone's answer time from telling who has an account, on its own:
// a timer of the test's own stands in for real time, so nothing here waits.
import { describe, expect, it } from 'vitest';
import type { Timer } from '../../lib/clock.js';
import { ConfigError, readConfig } from '../../lib/config.js';
import { paddedDispatch, SENDS_BEFORE_USE, SENDS_KEPT, SendDurations } from '../../lib/sms/text-dispatch.js';
import { median, percentile } from '../../scripts/bench/stats.js';

/** Time moves only when something sleeps or a send says it took time. */
function testTimer() {
  const slept: number[] = [];
  let now = 0;
  const timer: Timer = {
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
  return { timer, slept, pass: (ms: number) => (now += ms) };
}

/** A repeatable uniform [0, 1) (mulberry32), so the distributions checked are always the same draws. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const settings = { enabled: true, priorMedianMs: 100, priorP90Ms: 250 };
const message = { companyId: 'c', phoneNumber: '+12025550100', text: 'code', country: 'US', expiresAt: 0 };

describe('withholding a text in the time a send takes', () => {
  it('waits from the configured prior until enough sends are timed: its median and 90th percentile', async () => {
    const { timer, slept } = testTimer();
    const dispatch = paddedDispatch(async () => {}, timer, settings, seeded(1));
    for (let draw = 0; draw < 5000; draw++) await dispatch.withhold(message, Number.POSITIVE_INFINITY);
    expect(median(slept)).toBeGreaterThan(95);
    expect(median(slept)).toBeLessThan(105);
    expect(percentile(slept, 0.9)).toBeGreaterThan(235);
    expect(percentile(slept, 0.9)).toBeLessThan(265);
  });

  it('then waits only durations real sends took, failed ones included', async () => {
    const { timer, slept, pass } = testTimer();
    let next = 0;
    const sender = async () => {
      next += 1;
      pass(next);
      if (next % 2 === 0) throw new Error('SNS refused');
    };
    const dispatch = paddedDispatch(sender, timer, settings, seeded(2));
    const sent = Array.from({ length: SENDS_BEFORE_USE }, (_, index) => index + 1);
    for (let send = 1; send < SENDS_BEFORE_USE; send++) await dispatch.send(message).catch(() => undefined);
    await dispatch.withhold(message, Number.POSITIVE_INFINITY);
    expect(sent).not.toContain(slept.pop());

    await dispatch.send(message).catch(() => undefined);
    for (let draw = 0; draw < 400; draw++) await dispatch.withhold(message, Number.POSITIVE_INFINITY);
    expect(new Set(slept)).toEqual(new Set(sent));
  });

  it('keeps only the latest sends', () => {
    const durations = new SendDurations();
    for (let send = 0; send < SENDS_KEPT; send++) durations.record(1000);
    for (let send = 0; send < SENDS_KEPT; send++) durations.record(10);
    expect(durations.count).toBe(SENDS_KEPT);
    const random = seeded(3);
    expect(new Set(Array.from({ length: 500 }, () => durations.draw(random)))).toEqual(new Set([10]));
  });

  it('never waits past the time it is given, and not at all when there is none', async () => {
    const { timer, slept } = testTimer();
    const dispatch = paddedDispatch(async () => {}, timer, { ...settings, priorMedianMs: 5000, priorP90Ms: 5000 });
    await dispatch.withhold(message, 300);
    await dispatch.withhold(message, 0);
    await dispatch.withhold(message, -20);
    expect(slept).toEqual([300]);
  });

  it('waits nothing when turned off', async () => {
    const { timer, slept } = testTimer();
    await paddedDispatch(async () => {}, timer, { ...settings, enabled: false }).withhold(message, Number.POSITIVE_INFINITY);
    expect(slept).toEqual([]);
  });

  it('refuses a prior whose 90th percentile is below its median', () => {
    expect(() => readConfig({ SMS_DECOY_PRIOR_MEDIAN_MS: '200', SMS_DECOY_PRIOR_P90_MS: '100' })).toThrow(ConfigError);
    expect(readConfig({ SMS_DECOY_PRIOR_MEDIAN_MS: '200', SMS_DECOY_PRIOR_P90_MS: '200' }).sms.decoy.priorP90Ms).toBe(200);
  });
});
