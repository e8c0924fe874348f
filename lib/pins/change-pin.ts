import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { PIN_HASH_ATTRIBUTE, PIN_VERSION_ATTRIBUTE } from '../store/pin-store.js';
import { getUser } from '../store/user-store.js';
import type { ChangePinCall } from './change-pin-input.js';
import type { ChangePinResult } from './change-pin-result.js';
import { checkPinAndAudit } from './check-pin-and-audit.js';
import { setPin } from './set-pin.js';

/**
 * Changes a PIN knowing the current one (API contract 3.7): the current PIN is checked counted,
 * as a PIN login checks it (a wrong one is 17 and counts toward that PIN's lock); then the new
 * one is set, its count cleared, and every other session of the user ends, in one transaction.
 */
export async function changePin(app: App, { body: input, principal, origin, idempotencyRef }: ChangePinCall): Promise<ChangePinResult> {
  const { companyId, userId } = principal;
  const pinType = input.pin_type;
  const user = await getUser(app.table, companyId, userId, true);
  if (!user) throw new AppError('UNAUTHORIZED', { detail: 'no such user' });
  const check = {
    companyId,
    userId,
    pinType,
    pin: input.current_pin,
    storedHash: user[PIN_HASH_ATTRIBUTE[pinType]],
    attemptId: attemptIdOf(idempotencyRef),
  };
  // The count is cleared by setPin's own transaction.
  await checkPinAndAudit(app, origin, check, 'change_pin');
  const revoked = await setPin(app, principal, {
    pinType,
    newPin: input.new_pin,
    pinVersion: user[PIN_VERSION_ATTRIBUTE[pinType]] ?? 0,
    event: 'PIN_CHANGED',
  });
  audit(app, origin, 'pin_changed', { company_id: companyId, user_id: userId, outcome: 'changed', pin_type: pinType, revoked });
  audit(app, origin, 'sessions_revoked', { company_id: companyId, user_id: userId, outcome: 'pin_changed', revoked });
  return { message: 'PIN changed', revoked };
}
