// The service's clock: handed to the code that reads the time, so tests can move it.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const epochSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);

export const HOUR_SECONDS = 3600;

/**
 * Elapsed time, for measuring and waiting: monotonic, and never moved by a test the way the
 * Clock is. Handed in so a test can wait without a real timer.
 */
export interface Timer {
  /** Milliseconds from an arbitrary origin. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemTimer: Timer = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
