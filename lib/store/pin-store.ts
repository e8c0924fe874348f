import { DeleteCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  giveTryBack,
  giveWindowedTryBack,
  newTakeStamp,
  STAMP_TRY,
  stampValues,
  type TakenTry,
  takenFrom,
  takeWindowedTry,
  tryValues,
  type WindowedTry,
} from './attempt-sets.js';
import { conditionalWrite, counterStillIs } from './conditional-write.js';
import { pinDailyKey, pinTriesKey, pinTriesPrefix, USER_SORT_KEY, userKey, userPartitionPrefix } from './keys.js';
import { queryPartitionPrefix } from './partition-query.js';
import type { Table } from './table.js';
import type { TransactItem } from './transactions.js';

// A user's two PIN hashes, attributes of the user's own item: the login PIN and the transaction PIN.

export type PinType = 'login' | 'transaction';

/** One tally of a PIN's wrong tries (keys.ts pinTriesKey): per device for the login PIN, per session strength for the transaction PIN. */
export interface PinTally {
  companyId: string;
  userId: string;
  pinType: PinType;
  /** A device_key, "sms", or none (tries from a session with no device; a strong session's transaction PIN). */
  tally?: string | undefined;
}

export const PIN_HASH_ATTRIBUTE = { login: 'login_pin_hash', transaction: 'transaction_pin_hash' } as const satisfies Record<
  PinType,
  string
>;

/**
 * How many times each PIN was changed or reset (absent: 0): a session granted on a PIN compared
 * before is refused (session-store.ts sessionGrant). A rehash under a new key version leaves it.
 */
export const PIN_VERSION_ATTRIBUTE = {
  login: 'login_pin_version',
  transaction: 'transaction_pin_version',
} as const satisfies Record<PinType, string>;

/**
 * Replaces one PIN hash with another, only while the stored one is still the hash `from`: a
 * change made meanwhile (a PIN reset) is never overwritten. False when it was not.
 */
export async function replacePinHash(
  table: Table,
  change: { companyId: string; userId: string; pinType: PinType; from: string; to: string },
): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: userKey(change.companyId, change.userId),
        UpdateExpression: 'SET #hash = :to',
        ConditionExpression: '#hash = :from',
        ExpressionAttributeNames: { '#hash': PIN_HASH_ATTRIBUTE[change.pinType] },
        ExpressionAttributeValues: { ':from': change.from, ':to': change.to },
      }),
    ),
  );
  return outcome.written;
}

/** Every user's PIN hashes, of one company or of the whole table, a page at a time (a Scan: for operator commands only). */
export async function* scanPinHashes(table: Table, companyId?: string): AsyncGenerator<Partial<Record<PinType, string>>[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new ScanCommand({
        TableName: table.name,
        ExclusiveStartKey: start,
        ProjectionExpression: `${PIN_HASH_ATTRIBUTE.login}, ${PIN_HASH_ATTRIBUTE.transaction}`,
        FilterExpression: companyId ? 'sk = :profile AND begins_with(pk, :users)' : 'sk = :profile',
        ExpressionAttributeValues: {
          ':profile': USER_SORT_KEY,
          ...(companyId ? { ':users': userPartitionPrefix(companyId) } : {}),
        },
      }),
    );
    yield (page.Items ?? []).map((item) => ({ login: item[PIN_HASH_ATTRIBUTE.login], transaction: item[PIN_HASH_ATTRIBUTE.transaction] }));
    start = page.LastEvaluatedKey;
  } while (start);
}

/**
 * A PIN's lock is a fact of its tries item: `locked_at`, or a full set whose last try was taken
 * before `staleBefore` (every attempt that took a try has ended by then, so a full set nobody
 * marked is a lock whose mark was lost). Either way no attempt id, however it was counted before,
 * takes a try again: only a reset (which deletes the item) opens it (before round 6 an OTP login did too).
 */
const PIN_NOT_LOCKED = 'attribute_not_exists(locked_at)';
const PIN_TRY_ROOM = `${PIN_NOT_LOCKED} AND (attribute_not_exists(tries) OR size(tries) < :max OR (contains(tries, :id) AND last_try_at > :staleBefore))`;

/** A try taken; or refused: locked (marked), full with its mark lost (to be marked now), or full with attempts in flight. */
export type PinTry = ({ taken: true } & TakenTry) | { taken: false; refused: 'locked' | 'unmarked' | 'in_flight' };

/**
 * Takes one try of a PIN before it is compared, for one attempt (its id joins a string set, so a
 * write the SDK retried counts once), noting when: refused once the PIN is locked or the set is
 * full, saying which (a full set not yet locked holds attempts still in flight).
 */
export async function takePinTry(
  table: Table,
  target: PinTally,
  attempt: { attemptId: string; maxTries: number; nowSeconds: number; staleBefore: number },
): Promise<PinTry> {
  const stamp = newTakeStamp(attempt.attemptId, attempt.nowSeconds);
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: pinTriesKey(target.companyId, target.userId, target.pinType, target.tally),
        UpdateExpression: `ADD tries :attempt SET ${STAMP_TRY}`,
        ConditionExpression: PIN_TRY_ROOM,
        ExpressionAttributeValues: {
          ...tryValues(attempt.attemptId, attempt.maxTries),
          ...stampValues(stamp),
          ':staleBefore': attempt.staleBefore,
        },
        // What the take replaced (the count is those tries and this one); giving it back puts the stamp back.
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  if (outcome.written) return { taken: true, ...takenFrom(attempt.attemptId, stamp, outcome.result.Attributes) };
  const seen = outcome.seen ?? {};
  const lastTry = typeof seen.last_try_at === 'number' ? seen.last_try_at : 0;
  if (seen.locked_at !== undefined) return { taken: false, refused: 'locked' };
  return { taken: false, refused: lastTry <= attempt.staleBefore ? 'unmarked' : 'in_flight' };
}

/**
 * Marks a PIN locked, once: true for the one call that marked it (it tells the user). Nothing
 * when the tries were cleared meanwhile (an OTP login, a reset) or are not full.
 */
export async function markPinLocked(table: Table, target: PinTally, lock: { maxTries: number; nowSeconds: number }): Promise<boolean> {
  const outcome = await conditionalWrite(
    table.client.send(
      new UpdateCommand({
        TableName: table.name,
        Key: pinTriesKey(target.companyId, target.userId, target.pinType, target.tally),
        UpdateExpression: 'SET locked_at = :now',
        ConditionExpression: `${PIN_NOT_LOCKED} AND size(tries) >= :max`,
        ExpressionAttributeValues: { ':now': lock.nowSeconds, ':max': lock.maxTries },
      }),
    ),
  );
  return outcome.written;
}

/** The write that clears a PIN's tries (a right PIN, an OTP login for the login PIN, a reset), for a transaction or alone. */
export function pinTriesClear(table: Table, target: PinTally): TransactItem {
  return { Delete: pinTriesDelete(table, target) };
}

/**
 * Gives an attempt's try back: its PIN was right, but what it was for was refused (the device
 * removed meanwhile, the PIN changed), or nothing was compared: a right PIN never counts toward a
 * lock, and a try given back leaves no trace (giveTryBack; a tally it opened goes, unless locked).
 */
export async function givePinTryBack(table: Table, target: PinTally, taken: TakenTry): Promise<void> {
  await giveTryBack(table, pinTriesKey(target.companyId, target.userId, target.pinType, target.tally), taken, {
    expression: 'attribute_exists(tries)',
    values: {},
    deleteEmpty: { unless: 'attribute_exists(locked_at)' },
  });
}

/**
 * The same clear sent alone (a PIN login's grant in steps), for the attempt whose right PIN it
 * follows: only while the tally is gone or still holds that attempt's try. A copy of it that lands
 * late, after wrong tries made a new tally, deletes none of them (LabelledItem.alone).
 */
export function pinTriesClearAlone(table: Table, target: PinTally, attemptId: string): TransactItem {
  return { Delete: pinTriesDeleteHolding(table, target, attemptId) };
}

function pinTriesDeleteHolding(table: Table, target: PinTally, attemptId: string) {
  return {
    ...pinTriesDelete(table, target),
    ConditionExpression: 'attribute_not_exists(tries) OR contains(tries, :id)',
    ExpressionAttributeValues: { ':id': attemptId },
  };
}

function pinTriesDelete(table: Table, target: PinTally) {
  return { TableName: table.name, Key: pinTriesKey(target.companyId, target.userId, target.pinType, target.tally) };
}

/**
 * Sets a new hash for one of a user's PINs (a change or a reset) and counts the change, only while
 * that PIN is still the version read: from then on a PIN login that compared the old PIN is
 * refused its session (session-store.ts sessionGrant).
 */
/** The mark of a PIN staff chose at a registration (contract 3.15): the user sets their own before it is used. */
export const PIN_TO_SET = { login: 'login_pin_to_set', transaction: 'transaction_pin_to_set' } as const satisfies Record<PinType, string>;

export function pinReplace(
  table: Table,
  change: { companyId: string; userId: string; pinType: PinType; hash: string; pinVersion: number; now: number },
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: userKey(change.companyId, change.userId),
      // A PIN the user sets is no longer one staff chose (contract 3.15: pin_setup).
      UpdateExpression: 'SET #hash = :hash, updated_at = :now REMOVE #toSet ADD #version :one',
      ConditionExpression: `attribute_exists(pk) AND ${counterStillIs('#version', ':pinVersion', change.pinVersion)}`,
      ExpressionAttributeNames: {
        '#hash': PIN_HASH_ATTRIBUTE[change.pinType],
        '#version': PIN_VERSION_ATTRIBUTE[change.pinType],
        '#toSet': PIN_TO_SET[change.pinType],
      },
      ExpressionAttributeValues: { ':hash': change.hash, ':now': change.now, ':one': 1, ':pinVersion': change.pinVersion },
    },
  };
}

/**
 * Holds a transaction to the PIN version read with the PIN compared: a change or reset of that PIN
 * committed meanwhile refuses it (the PIN it compared is no longer the user's).
 */
export function pinVersionCheck(
  table: Table,
  target: { companyId: string; userId: string; pinType: PinType; pinVersion: number },
): TransactItem {
  return {
    ConditionCheck: {
      TableName: table.name,
      Key: userKey(target.companyId, target.userId),
      ConditionExpression: counterStillIs('#version', ':pinVersion', target.pinVersion),
      ExpressionAttributeNames: { '#version': PIN_VERSION_ATTRIBUTE[target.pinType] },
      ExpressionAttributeValues: { ':pinVersion': target.pinVersion },
    },
  };
}

/**
 * Clears a PIN's tries on its own after a right PIN (a step-up), under pinTriesClearAlone's
 * condition: a copy that lands late, after wrong tries made a new tally, deletes none of them.
 */
export async function clearPinTriesAfter(table: Table, target: PinTally, attemptId: string): Promise<void> {
  await conditionalWrite(table.client.send(new DeleteCommand(pinTriesDeleteHolding(table, target, attemptId))));
}

/** Every tally of one PIN as kept: its key, its tries and whether its lock is marked (the back office's view, a reset). */
export async function queryPinTallies(
  table: Table,
  target: { companyId: string; userId: string; pinType: PinType },
): Promise<{ sk: string; tally: string | undefined; tries: number; lockMarked: boolean }[]> {
  const prefix = pinTriesPrefix(target.pinType);
  const items = await queryPartitionPrefix(table, userKey(target.companyId, target.userId).pk, prefix, {
    projection: 'sk, tries, locked_at',
  });
  // PINTRIES#login is also the prefix of PINTRIES#login#<tally>: nothing else starts with it.
  return items.map((item) => {
    const sk = String(item.sk);
    return {
      sk,
      tally: sk === prefix ? undefined : sk.slice(prefix.length + 1),
      tries: (item.tries as Set<string> | undefined)?.size ?? 0,
      lockMarked: item.locked_at !== undefined,
    };
  });
}

/** The writes that clear every tally of a PIN (a reset, a new PIN taking effect), for one transaction. */
export function pinTalliesClear(
  table: Table,
  target: { companyId: string; userId: string; pinType: PinType },
  sortKeys: string[],
): TransactItem[] {
  const { pk } = userKey(target.companyId, target.userId);
  return sortKeys.map((sk) => ({ Delete: { TableName: table.name, Key: { pk, sk } } }));
}

/** Takes one of a user's daily wrong tries of a PIN (contract 3.15): at most maxTries in the 24 hours from the first. */
export function takeDailyPinTry(
  table: Table,
  target: { companyId: string; userId: string; pinType: PinType },
  attempt: { id: string; now: number; windowSeconds: number; maxTries: number },
): Promise<WindowedTry> {
  return takeWindowedTry(table, pinDailyKey(target.companyId, target.userId, target.pinType), attempt);
}

/**
 * Gives a daily try back (the PIN was right, or nothing was compared): out of the window it was taken
 * in, with the stamp before it put back; a window it opened goes with it, so a refusal that compared
 * nothing opens no day (a right PIN's change gives its try back in its transaction, dailyPinTryReturn).
 */
export async function giveDailyPinTryBack(
  table: Table,
  target: { companyId: string; userId: string; pinType: PinType },
  taken: TakenTry & { windowStart: number },
): Promise<void> {
  await giveWindowedTryBack(table, pinDailyKey(target.companyId, target.userId, target.pinType), taken);
}

/**
 * A day's try given back in the transaction of a right PIN's change: the attempt's id taken out of the
 * window it was counted in (the window is this request's own: it exists, and no one else deletes it).
 */
export function dailyPinTryReturn(
  table: Table,
  target: { companyId: string; userId: string; pinType: PinType },
  attemptId: string,
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: pinDailyKey(target.companyId, target.userId, target.pinType),
      UpdateExpression: 'DELETE tries :attempt',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':attempt': new Set([attemptId]) },
    },
  };
}
