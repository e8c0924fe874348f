import * as z from 'zod/mini';
import type { App } from '../app-context.js';
import type { Principal } from '../call.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { hashPin } from '../secrets/hashing.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import { sessionKey } from '../store/keys.js';
import { PIN_VERSION_ATTRIBUTE, type PinType, pinReplace, pinTriesClear } from '../store/pin-store.js';
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

/**
 * Sets a user's PIN and ends every other session of theirs. One transaction makes the change:
 * the new hash and the PIN's version (a PIN login that compared the old PIN is refused its
 * session from then on), the count and lock cleared, a security notice, the caller's own items (a
 * proof used up) and the deletion of the other sessions read before. Sessions granted between
 * that read and the commit are found by a second read and ended before the answer. Not guarded by
 * the user's session count: PIN logins flooding in cannot hold a change back.
 * With pinVersion (change_pin compared that version), a change made meanwhile refuses this one
 * with PIN_INVALID. Returns how many sessions ended.
 */
export async function setPin(
  app: App,
  principal: Principal,
  change: { pinType: PinType; newPin: string; pinVersion?: number; event: 'PIN_CHANGED' | 'PIN_RESET'; items?: LabelledItem<string>[] },
): Promise<number> {
  const { companyId, userId, sessionId } = principal;
  const { pinType } = change;
  const kept = sessionKey(companyId, userId, sessionId).sk;
  const others = async () => (await querySessions(app.table, companyId, userId)).map(({ key }) => key).filter(({ sk }) => sk !== kept);
  const hash = await hashPin(app.keys, change.newPin, app.hashCost.pin);
  for (let round = 1; ; round++) {
    const [user, before] = await Promise.all([getUser(app.table, companyId, userId, true), others()]);
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
        { label: 'tries', item: pinTriesClear(app.table, { companyId, userId, pinType }) },
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
