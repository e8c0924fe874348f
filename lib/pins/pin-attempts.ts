import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { markPinLocked, pinTriesClear, takePinTry } from '../store/pin-store.js';
import type { TransactItem } from '../store/transactions.js';
import { type PinCheck, pinMatches } from './pin-hashes.js';

// One mechanism for both PINs (API contract 3.6-3.8): a PIN is compared only after the attempt
// has taken one of its tries (count first, compare second), so however many wrong PINs arrive at
// once, at most config.pinMaxFailures are compared before the PIN locks; a right PIN clears them.
// The login PIN and the transaction PIN are counted apart and differ only in pinType.

/** A PIN refused: wrong (PIN_INVALID with the tries left) or locked (PIN_LOCKED, nothing compared). */
export class PinRefused extends AppError {
  constructor(
    readonly outcome: 'wrong' | 'locked',
    attemptsLeft: number,
    /** True when this very attempt marked the PIN locked (it spent the last try, or found a lock whose mark was lost): it tells the user. */
    readonly lockedNow: boolean,
  ) {
    super(outcome === 'wrong' ? 'PIN_INVALID' : 'PIN_LOCKED', {
      detail: outcome === 'wrong' ? 'wrong PIN' : 'PIN locked after too many wrong tries',
      ...(outcome === 'wrong' ? { data: { attempts_left: attemptsLeft } } : {}),
    });
  }
}

/**
 * Where a PIN stands by its tries (the back office's view, API contract 3.14): locked once its lock
 * is marked or every try is taken (a mark still to come, or attempts in flight that lock it or
 * clear it); the tries left before it locks.
 */
export function pinStandingOf(
  { config }: Pick<App, 'config'>,
  { tries, lockMarked }: { tries: number; lockMarked: boolean },
): { locked: boolean; attemptsLeft: number } {
  const locked = lockMarked || tries >= config.pinMaxFailures;
  return { locked, attemptsLeft: locked ? 0 : config.pinMaxFailures - tries };
}

/** Every try of a PIN taken by attempts still in flight: try again in a second (503, code 16). */
export class PinBusy extends AppError {
  constructor() {
    super('SERVICE_UNAVAILABLE', { detail: 'every try of this PIN is held by attempts in flight', headers: { 'retry-after': '1' } });
  }
}

/**
 * How long an attempt can hold a try: a function's timeout and the one write that may still be in
 * flight then. A full set of tries older than this is locked, whether or not its mark was written.
 */
function tryHeldSeconds({ config }: Pick<App, 'config'>): number {
  return Math.ceil((config.functionTimeoutMs + config.dynamodbTimeoutMs) / 1000) + 1;
}

/** Marks the lock, best effort: true when this call marked it. A mark not written is found again once the tries are old. */
async function markLocked(app: App, check: PinCheck, lock: { maxTries: number; nowSeconds: number }): Promise<boolean> {
  try {
    return await markPinLocked(app.table, check, lock);
  } catch (error) {
    app.logger.warn('PIN lock mark not written', { error: error as Error, user_id: check.userId });
    return false;
  }
}

/**
 * Counts a try, then compares the PIN: takes a try first (refused: PIN_LOCKED), then compares. A
 * wrong PIN keeps its try and throws PIN_INVALID with the tries left. A right one returns the write
 * that clears the count, for the caller to make with its own change in one transaction. Audits
 * nothing: the endpoints call checkPinAndAudit (check-pin-and-audit.ts), which does.
 */
export async function countThenComparePin(app: App, check: PinCheck): Promise<{ clearTries: TransactItem; triesTaken: number }> {
  const max = app.config.pinMaxFailures;
  const nowSeconds = epochSeconds(app.clock);
  const attemptId = check.attemptId ?? attemptIdOf(undefined);
  const taken = await takePinTry(app.table, check, { attemptId, maxTries: max, nowSeconds, staleBefore: nowSeconds - tryHeldSeconds(app) });
  if (!taken.taken) {
    // Full tries not yet locked are the user's own attempts still in flight (a right PIN clears
    // them once compared): 503 with Retry-After, nothing compared.
    if (taken.refused === 'in_flight') throw new PinBusy();
    // A full set nobody marked (its mark lost): this attempt marks it, and tells the user.
    const markedNow = taken.refused === 'unmarked' && (await markLocked(app, check, { maxTries: max, nowSeconds }));
    throw new PinRefused('locked', 0, markedNow);
  }
  if (!(await pinMatches(app, check))) {
    // The wrong PIN that spent the last try marks the lock: from now on 18 at once, not "busy".
    // Its refusal stands whatever the mark does: a lost mark is found once the tries are old.
    const lockedNow = taken.tries >= max && (await markLocked(app, check, { maxTries: max, nowSeconds }));
    throw new PinRefused('wrong', Math.max(0, max - taken.tries), lockedNow);
  }
  return { clearTries: pinTriesClear(app.table, check), triesTaken: taken.tries };
}
