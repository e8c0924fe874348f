import * as z from 'zod/mini';
import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import { sessionKey } from '../store/keys.js';
import { PIN_VERSION_ATTRIBUTE, type PinType, pinReplace, pinTalliesClear, queryPinTallies } from '../store/pin-store.js';
import { endSessions, querySessions, sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { getUser } from '../store/user-store.js';

// A new PIN, by change_pin (knowing the current one) or reset_pin (proving the phone), for either
// PIN (API contract 3.7): one mechanism, pinType its parameter.

/** pin_type as the API takes it: 1 the login PIN, 2 the transaction PIN. */
export const pinTypeField = z.pipe(
  z.union([z.literal(1), z.literal(2)], { error: 'must be 1 (login PIN) or 2 (transaction PIN)' }),
  z.transform((value: 1 | 2): PinType => (value === 1 ? 'login' : 'transaction')),
);

const MAX_ROUNDS = 3;

/** Whose PIN is set: the user, and the session kept (the one that asked; none: every session ends). */
export interface PinOwner {
  companyId: string;
  userId: string;
  keptSessionId?: string | undefined;
  /** Only sessions begun before this (epoch seconds) end: a held PIN that takes effect late leaves those begun after its time. */
  endBegunBefore?: number | undefined;
}

/**
 * Sets a user's PIN and ends every other session of theirs. One transaction makes the change:
 * the new hash and the PIN's version (a PIN login that compared the old PIN is refused its
 * session from then on), every tally of the PIN cleared, a security notice, the caller's own items
 * (a proof used up, a held change done) and the deletion of the other sessions read before.
 * Sessions granted between that read and the commit are found by a second read and ended before
 * the answer. Not guarded by the user's session count: PIN logins flooding in cannot hold a change back.
 * With pinVersion (change_pin compared that version), a change made meanwhile refuses this one
 * with PIN_INVALID. Returns how many sessions ended.
 */
export async function setPin(
  app: App,
  owner: PinOwner,
  change: { pinType: PinType; hash: string; pinVersion?: number; event: 'PIN_CHANGED' | 'PIN_RESET'; items?: LabelledItem<string>[] },
): Promise<number> {
  const { companyId, userId, keptSessionId, endBegunBefore = Number.POSITIVE_INFINITY } = owner;
  const { pinType, hash } = change;
  const kept = keptSessionId === undefined ? undefined : sessionKey(companyId, userId, keptSessionId).sk;
  const others = async () =>
    (await querySessions(app.table, companyId, userId))
      .filter(({ key, createdAt }) => key.sk !== kept && createdAt < endBegunBefore)
      .map(({ key }) => key);
  for (let round = 1; ; round++) {
    const [user, before, tallies] = await Promise.all([
      getUser(app.table, companyId, userId, true),
      others(),
      queryPinTallies(app.table, { companyId, userId, pinType }),
    ]);
    if (!user) throw new AppError('UNAUTHORIZED', { detail: 'no such user' });
    const pinVersion = user[PIN_VERSION_ATTRIBUTE[pinType]] ?? 0;
    if (change.pinVersion !== undefined && pinVersion !== change.pinVersion) {
      throw new AppError('PIN_INVALID', { detail: 'the PIN was changed meanwhile' });
    }
    // Too many for one transaction: ended first (they are ended either way).
    const inTransaction = before.length > MAX_SESSIONS_IN_TRANSACTION ? [] : before;
    if (!inTransaction.length && before.length) await endSessions(app.table, before, { reason: 'pin_changed', atMs: app.clock.now() });
    const nowMs = app.clock.now();
    const notice = securityNotificationWrites(app.table, companyId, userId, { event: SecurityEvent[change.event], pinType, nowMs });
    try {
      await writeTransaction<string>(app.table, [
        { label: 'user', item: pinReplace(app.table, { companyId, userId, pinType, hash, pinVersion, now: Math.floor(nowMs / 1000) }) },
        ...pinTalliesClear(
          app.table,
          { companyId, userId, pinType },
          tallies.map(({ sk }) => sk),
        ).map((item) => ({ label: 'tries', item })),
        ...notice.map((item) => ({ label: 'notice', item })),
        ...(change.items ?? []),
        ...inTransaction.map((key) => ({ label: 'session', item: sessionEnd(app.table, key, { reason: 'pin_changed', atMs: nowMs }) })),
      ]);
    } catch (error) {
      // The PIN's version moved (another change or reset): read again, and a change_pin is refused above.
      const raced = error instanceof ConditionsFailed && error.labels.includes('user') && !error.labels.includes('proof');
      if (!raced || round >= MAX_ROUNDS) throw error;
      continue;
    }
    const after = await others();
    if (after.length) await endSessions(app.table, after, { reason: 'pin_changed', atMs: app.clock.now() });
    return before.length + after.length;
  }
}
