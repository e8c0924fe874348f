import type { Clock } from '../../lib/clock.js';

/** A clock for tests and scripts: the real time, moved forward or stopped on request. */
export class AdjustableClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  /** Moves the clock forward by some seconds from its current reading. */
  advance(seconds: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += seconds * 1000;
    else this.offsetMs += seconds * 1000;
  }

  /** Stops the clock at an instant, so counted windows and hours do not drift. */
  freeze(epochSeconds: number): void {
    this.frozenAt = epochSeconds * 1000;
  }

  /**
   * Stops the clock where it stands (never moving it back, as freezing at a whole second would),
   * so a request's time is the reading answered (epoch ms), however long the request takes.
   */
  stop(): number {
    this.frozenAt = this.now();
    return this.frozenAt;
  }

  /** Back to the real time. */
  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = undefined;
  }
}
