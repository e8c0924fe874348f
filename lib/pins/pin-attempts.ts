import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import {
  dailyPinTryReturn,
  giveDailyPinTryBack,
  givePinTryBack,
  markPinLocked,
  pinTriesClear,
  pinTriesClearAlone,
  takeDailyPinTry,
  takePinTry,
} from '../store/pin-store.js';
import type { LabelledItem, TransactItem } from '../store/transactions.js';
import { type PinCheck, pinMatches } from './pin-hashes.js';

const DAY_SECONDS = 24 * 3600;

// One mechanism for both PINs (API contract 3.6-3.8): a PIN is compared only after the attempt
// has taken one of its tries (count first, compare second), so however many wrong PINs arrive at
// once, at most config.pinMaxFailures are compared before the PIN locks; a right PIN clears them.
// The login PIN and the transaction PIN are counted apart and differ only in pinType. Each counts on
// tallies (contract 3.15): a login PIN per device, a transaction PIN per session strength, so whoever
// binds new devices with a code locks those, never the owner's settled device; and on a daily cap
// over the tallies, PIN_DAILY_MAX_FAILURES wrong tries in the 24 hours from the first.

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

/** What a right PIN leaves its caller to do. */
export interface RightPin {
  /**
   * The writes a right PIN makes with the caller's change, in its transaction: the tally cleared
   * (and its clear sent alone, when the change goes in steps), the day's try given back.
   */
  writes: Pick<LabelledItem<string>, 'item' | 'alone'>[];
  /** The day's try given back alone, for a change that clears every tally itself (a new PIN). */
  dayReturn: TransactItem[];
  triesTaken: number;
  /** The PIN was right but its change was refused for another reason: its tries go back (a right PIN never counts toward a lock). */
  giveBack: () => Promise<void>;
}

/**
 * Counts a try, then compares the PIN: takes a try first (refused: PIN_LOCKED), then compares. A
 * wrong PIN keeps its try and throws PIN_INVALID with the tries left. A right one returns the writes
 * that clear the count, for the caller to make with its own change in one transaction. Audits
 * nothing: the endpoints call checkPinAndAudit (check-pin-and-audit.ts), which does.
 */
export async function countThenComparePin(app: App, check: PinCheck): Promise<RightPin> {
  const max = app.config.pinMaxFailures;
  const nowSeconds = epochSeconds(app.clock);
  const attemptId = check.attemptId ?? attemptIdOf(undefined);
  const dailyTry = { id: attemptId, now: nowSeconds, windowSeconds: DAY_SECONDS, maxTries: app.config.pinDailyMaxFailures };
  // The tally's try and the day's, side by side: both counted before the PIN is compared.
  const [taken, daily] = await Promise.all([
    takePinTry(app.table, check, { attemptId, maxTries: max, nowSeconds, staleBefore: nowSeconds - tryHeldSeconds(app) }),
    check.daily ? takeDailyPinTry(app.table, check, dailyTry) : undefined,
  ]);
  const giveDailyBack = async () => {
    if (daily?.taken) await giveDailyPinTryBack(app.table, check, { id: attemptId, ...daily }).catch(() => undefined);
  };
  if (daily && !daily.taken) {
    // The day's wrong tries are spent: nothing is compared, and the tally's try goes back.
    if (taken.taken) await givePinTryBack(app.table, check, taken).catch(() => undefined);
    throw new PinRefused('locked', 0, false);
  }
  if (!taken.taken) {
    await giveDailyBack();
    // Full tries not yet locked are the user's own attempts still in flight (a right PIN clears
    // them once compared): 503 with Retry-After, nothing compared.
    if (taken.refused === 'in_flight') throw new PinBusy();
    // A full set nobody marked (its mark lost): this attempt marks it, and tells the user.
    const markedNow = taken.refused === 'unmarked' && (await markLocked(app, check, { maxTries: max, nowSeconds }));
    throw new PinRefused('locked', 0, markedNow);
  }
  if (!(await pinMatches(app, check))) {
    // A wrong PIN keeps both its tries.
    // The wrong PIN that spent the last try marks the lock: from now on 18 at once, not "busy".
    // Its refusal stands whatever the mark does: a lost mark is found once the tries are old.
    const lockedNow = taken.tries >= max && (await markLocked(app, check, { maxTries: max, nowSeconds }));
    throw new PinRefused('wrong', Math.max(0, max - taken.tries), lockedNow);
  }
  // A right PIN is no wrong try of the day's: its try goes back with the caller's change.
  const dayReturn = daily?.taken ? [dailyPinTryReturn(app.table, check, attemptId)] : [];
  return {
    writes: [
      { item: pinTriesClear(app.table, check), alone: pinTriesClearAlone(app.table, check, attemptId) },
      ...dayReturn.map((item) => ({ item })),
    ],
    dayReturn,
    triesTaken: taken.tries,
    giveBack: async () => {
      await Promise.all([givePinTryBack(app.table, check, taken).catch(() => undefined), giveDailyBack()]);
    },
  };
}
