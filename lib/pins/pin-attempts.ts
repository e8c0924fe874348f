import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { markPinLocked, pinTriesClear, takePinTry } from '../store/pin-store.js';
import type { TransactItem } from '../store/transactions.js';
import { checkPin, type PinCheck } from './pin-hashes.js';

// One mechanism for both PINs (API contract 3.6-3.8): a PIN is compared only after the attempt
// has taken one of its tries (count first, compare second), so however many wrong PINs arrive at
// once, at most config.pinMaxFailures are compared before the PIN locks; a right PIN clears them.
// The login PIN and the transaction PIN are counted apart and differ only in pinType.

/** A PIN refused: wrong (PIN_INVALID with the tries left) or locked (PIN_LOCKED, nothing compared). */
export class PinRefused extends AppError {
  constructor(
    readonly outcome: 'wrong' | 'locked',
    attemptsLeft: number,
    /** True when this very attempt spent the last try: the PIN has just locked. */
    readonly lockedNow: boolean,
  ) {
    super(outcome === 'wrong' ? 'PIN_INVALID' : 'PIN_LOCKED', {
      detail: outcome === 'wrong' ? 'wrong PIN' : 'PIN locked after too many wrong tries',
      ...(outcome === 'wrong' ? { data: { attempts_left: attemptsLeft } } : {}),
    });
  }
}

/** Every try of a PIN taken by attempts still in flight: try again in a second (503, code 16). */
export class PinBusy extends AppError {
  constructor() {
    super('SERVICE_UNAVAILABLE', { detail: 'every try of this PIN is held by attempts in flight', headers: { 'retry-after': '1' } });
  }
}

/**
 * Checks a PIN, counted: takes a try first (refused: PIN_LOCKED), then compares. A wrong PIN
 * keeps its try and throws PIN_INVALID with the tries left. A right one returns the write that
 * clears the count, for the caller to make with its own change in one transaction.
 */
export async function checkPinCounted(app: App, check: PinCheck): Promise<{ clearTries: TransactItem; triesTaken: number }> {
  const max = app.config.pinMaxFailures;
  const attemptId = check.attemptId ?? attemptIdOf(undefined);
  const taken = await takePinTry(app.table, check, attemptId, max);
  // Full tries not marked locked are the user's own attempts still in flight (a right PIN clears
  // them once compared): not a lock, so 503 with Retry-After, and nothing compared.
  if (!taken.taken && !taken.locked) throw new PinBusy();
  if (!taken.taken) throw new PinRefused('locked', 0, false);
  if (!(await checkPin(app, check))) {
    const lockedNow = taken.tries >= max;
    // The wrong PIN that spent the last try marks the lock: from now on 18 at once, not "busy".
    if (lockedNow) await markPinLocked(app.table, check, epochSeconds(app.clock));
    throw new PinRefused('wrong', Math.max(0, max - taken.tries), lockedNow);
  }
  return { clearTries: pinTriesClear(app.table, check), triesTaken: taken.tries };
}
