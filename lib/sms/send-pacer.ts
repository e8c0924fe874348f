// Sending numbers have rates of their own (a US toll-free number about 3 message parts a second,
// a short code about 100, a 10DLC number 1; docs/scaling.md), and countries may have their own
// caps. The queue's consumer paces each message against its pool's rate and its country's: a
// send waits for its slot instead of being throttled by SNS. Each consumer takes its share of a
// rate (rate / the queue's most concurrent consumers), so together they never pass it.

import type { PacingSettings, SendingPool } from '../config.js';

/** The pool that sends to a country: the one naming it, else the one with '*'. */
export function poolFor(pools: SendingPool[], country: string): SendingPool | undefined {
  return pools.find((pool) => pool.countries.includes(country)) ?? pools.find((pool) => pool.countries.includes('*'));
}

/**
 * A rate as booked intervals: a send of n parts holds the rate for n / rate seconds from its
 * start. A send may start in any gap long enough, so a country held to a slower cap of its own
 * books later slots without keeping the rest of its pool waiting.
 */
export class RateSchedule {
  private booked: { start: number; end: number }[] = [];

  constructor(readonly partsPerSecond: number) {}

  durationMs(parts: number): number {
    return (parts * 1000) / this.partsPerSecond;
  }

  /** Forgets what ended before `nowMs`. */
  prune(nowMs: number): void {
    this.booked = this.booked.filter((interval) => interval.end > nowMs);
  }

  /** Times a send could start at: now, or when a booked interval ends. */
  candidates(nowMs: number): number[] {
    return [nowMs, ...this.booked.map((interval) => interval.end).filter((end) => end > nowMs)];
  }

  fits(startMs: number, parts: number): boolean {
    const end = startMs + this.durationMs(parts);
    return this.booked.every((interval) => interval.end <= startMs || interval.start >= end);
  }

  book(startMs: number, parts: number): void {
    this.booked.push({ start: startMs, end: startMs + this.durationMs(parts) });
  }

  /** SNS said the rate was passed: nothing more starts before `untilMs`. */
  holdUntil(untilMs: number): void {
    this.booked.push({ start: Number.NEGATIVE_INFINITY, end: untilMs });
  }
}

/** The schedules one consumer keeps: one per pool, one per capped country. */
export class SendPacer {
  private readonly pools = new Map<string, RateSchedule>();
  private readonly countries = new Map<string, RateSchedule>();

  constructor(private readonly settings: PacingSettings) {}

  private schedules(country: string): RateSchedule[] {
    const pool = poolFor(this.settings.pools, country);
    const countryRate = this.settings.countryPartsPerSecond[country];
    const schedules: RateSchedule[] = [];
    if (pool) schedules.push(this.scheduleIn(this.pools, pool.name, pool.partsPerSecond));
    if (countryRate) schedules.push(this.scheduleIn(this.countries, country, countryRate));
    return schedules;
  }

  /** This consumer's share of a rate: rate / consumers. */
  private scheduleIn(schedules: Map<string, RateSchedule>, name: string, partsPerSecond: number): RateSchedule {
    let schedule = schedules.get(name);
    if (!schedule) {
      schedule = new RateSchedule(partsPerSecond / Math.max(1, this.settings.consumers));
      schedules.set(name, schedule);
    }
    return schedule;
  }

  /**
   * Reserves a slot for `parts` to `country` and answers when it starts; undefined, reserving
   * nothing, when it could not start by `latestStartMs` (the message waits in the queue instead).
   */
  reserve(country: string, parts: number, nowMs: number, latestStartMs: number): number | undefined {
    const schedules = this.schedules(country);
    for (const schedule of schedules) schedule.prune(nowMs);
    const candidates = [...new Set(schedules.flatMap((schedule) => schedule.candidates(nowMs)))].sort((a, b) => a - b);
    const start = candidates.find((time) => schedules.every((schedule) => schedule.fits(time, parts))) ?? nowMs;
    if (start > latestStartMs) return undefined;
    for (const schedule of schedules) schedule.book(start, parts);
    return start;
  }

  /** SNS throttled a send to `country`: its pool and country wait `backoffMs` before anything more. */
  throttled(country: string, untilMs: number): void {
    for (const schedule of this.schedules(country)) schedule.holdUntil(untilMs);
  }
}
