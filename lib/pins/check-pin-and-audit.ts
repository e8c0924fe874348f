import type { App } from '../app-context.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import type { PinType } from '../store/pin-store.js';
import { writeTransaction } from '../store/transactions.js';
import type { UserRecord } from '../store/user-store.js';
import { countThenComparePin, PinRefused, type RightPin } from './pin-attempts.js';
import type { PinCheck } from './pin-hashes.js';

/** The check of a login PIN sent with a bound device's proof: counted on that device's own tally (PIN login, step-up). */
export function devicePinCheck(
  user: Pick<UserRecord, 'company_id' | 'user_id' | 'login_pin_hash'>,
  sent: { login_pin: string; device_key: string },
  attemptId: string,
  daily?: boolean,
): PinCheck {
  return {
    companyId: user.company_id,
    userId: user.user_id,
    pinType: 'login',
    pin: sent.login_pin,
    storedHash: user.login_pin_hash,
    attemptId,
    tally: sent.device_key,
    ...(daily !== undefined ? { daily } : {}),
  };
}

/** The attempt that locked a PIN: a PIN_LOCKED notice in the user's list, once. */
async function writePinLocked(app: App, target: { companyId: string; userId: string; pinType: PinType }): Promise<void> {
  const nowMs = app.clock.now();
  const notice = securityNotificationWrites(app.table, target.companyId, target.userId, {
    event: SecurityEvent.PIN_LOCKED,
    pinType: target.pinType,
    nowMs,
  });
  await writeTransaction(
    app.table,
    notice.map((item) => ({ label: 'notice', item })),
  );
}

/**
 * The one PIN check of login, change and transaction authorization: countThenComparePin
 * (pin-attempts.ts), then what its outcome is recorded as: an audit event for each outcome, and
 * when this attempt locked the PIN, a PIN_LOCKED notice in the user's list, best effort (the
 * refusal stands either way).
 * Returns what a right PIN writes with the caller's change (RightPin), and the tries taken.
 */
export async function checkPinAndAudit(app: App, origin: RequestOrigin | undefined, check: PinCheck, action: string): Promise<RightPin> {
  const event = { company_id: check.companyId, user_id: check.userId, pin_type: check.pinType, action };
  try {
    const counted = await countThenComparePin(app, check);
    audit(app, origin, 'pin_verified', { ...event, outcome: 'right' });
    return counted;
  } catch (error) {
    if (!(error instanceof PinRefused)) throw error;
    audit(app, origin, 'pin_failed', { ...event, outcome: error.outcome, attempts_left: error.data?.attempts_left ?? 0 });
    if (error.lockedNow) {
      audit(app, origin, 'pin_locked', { ...event, outcome: 'locked' });
      await writePinLocked(app, check).catch((failure: Error) =>
        app.logger.warn('PIN lock notice not written', { error: failure, user_id: check.userId }),
      );
    }
    throw error;
  }
}
