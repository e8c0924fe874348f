import type { App } from '../app-context.js';
import type { RequestKey } from '../call.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { pendingChangeEndWrites } from '../pending-changes/change-cancel.js';
import { holdChange } from '../pending-changes/held-change.js';
import { waitingOfKind } from '../pending-changes/pending-change-list.js';
import { hashPin } from '../secrets/hashing.js';
import { isStrong, requireFreshStrong } from '../sessions/session-strength.js';
import type { TextDispatch } from '../sms/text-dispatch.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { queryPendingChanges } from '../store/pending-change-store.js';
import { PIN_HASH_ATTRIBUTE, PIN_VERSION_ATTRIBUTE } from '../store/pin-store.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import type { ChangePinCall } from './change-pin-input.js';
import type { ChangePinResult } from './change-pin-result.js';
import { checkPinAndAudit } from './check-pin-and-audit.js';
import { requirePinsDiffer } from './distinct-pins.js';
import { PIN_CHANGE_KIND, withDuePinApplied } from './held-pins.js';
import { sessionPinTally } from './pin-tally.js';
import { setPin } from './set-pin.js';

/**
 * Changes a PIN knowing the current one (API contract 3.7 and 3.15): the current PIN is checked
 * counted, as a PIN login checks it (a wrong one is 17 and counts on the session's tally). From a
 * strong session proven under STEP_UP_MAX_AGE_SECONDS ago the new one is set at once, every tally
 * cleared and every other session ended, in one transaction; from an SMS-strength session (a
 * phished PIN and code) it waits PHONE_CHANGE_HOLD_HOURS, cancellable from any session.
 */
export async function changePin(app: App, call: ChangePinCall & RequestKey, texts: TextDispatch): Promise<ChangePinResult> {
  const { body: input, principal, origin, idempotencyRef } = call;
  const { companyId, userId } = principal;
  const pinType = input.pin_type;
  const strong = isStrong(principal);
  if (strong) requireFreshStrong(app, principal, 'a PIN change');
  const [read, changes] = await Promise.all([
    getUser(app.table, companyId, userId, true),
    queryPendingChanges(app.table, companyId, userId),
  ]);
  if (read?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  const user = await withDuePinApplied(app, origin, read, changes, pinType);
  const check = {
    companyId,
    userId,
    pinType,
    pin: input.current_pin,
    storedHash: user[PIN_HASH_ATTRIBUTE[pinType]],
    attemptId: attemptIdOf(idempotencyRef),
    ...sessionPinTally(principal, pinType),
  };
  const rightPin = await checkPinAndAudit(app, origin, check, 'change_pin');
  await requirePinsDiffer(app, user, pinType, input.new_pin);
  const hash = await hashPin(app.keys, input.new_pin, app.hashCost.pin);
  const event = { company_id: companyId, user_id: userId, pin_type: pinType };
  if (!strong) {
    const held = await holdChange(app, call, texts, {
      kind: PIN_CHANGE_KIND[pinType],
      details: { pin_hash: hash, reason: 'changed' },
      warnPhoneE164: user.phone_e164,
      message: 'PIN change pending',
      items: () => rightPin.writes.map((write) => ({ label: 'tries', ...write })),
      known: changes,
      onRefused: rightPin.giveBack,
    });
    audit(app, origin, 'pin_changed', { ...event, outcome: 'held', change_id: held.change_id, effective_at: held.effective_at });
    return held;
  }
  // A change of this PIN that waited is superseded by this one.
  const waiting = waitingOfKind(changes, PIN_CHANGE_KIND[pinType], epochSeconds(app.clock));
  const superseded = waiting
    ? pendingChangeEndWrites(app, companyId, userId, waiting, { reason: 'cancelled', requestRef: idempotencyRef, quiet: true })
    : [];
  const revoked = await setPin(
    app,
    { companyId, userId, keptSessionId: principal.sessionId },
    {
      pinType,
      hash,
      pinVersion: user[PIN_VERSION_ATTRIBUTE[pinType]] ?? 0,
      event: 'PIN_CHANGED',
      items: [...superseded, ...rightPin.dayReturn.map((item) => ({ label: 'day', item }))],
    },
  );
  audit(app, origin, 'pin_changed', { ...event, outcome: 'changed', revoked });
  audit(app, origin, 'sessions_revoked', { company_id: companyId, user_id: userId, outcome: 'pin_changed', revoked });
  return { message: 'PIN changed', revoked };
}
