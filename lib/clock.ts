// The service's clock: handed to the code that reads the time, so tests can move it.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const epochSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);

export const HOUR_SECONDS = 3600;
