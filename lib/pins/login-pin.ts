import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { loginPinText, signatureMatches } from '../devices/device-signatures.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import type { SessionTokens } from '../sessions/access-tokens.js';
import { GrantRefused, grantSession } from '../sessions/session-grant.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { deviceUseWrite, getDevice, takeNonce } from '../store/device-store.js';
import { givePinTryBack, PIN_VERSION_ATTRIBUTE } from '../store/pin-store.js';
import { getUser } from '../store/user-store.js';
import { UserStatus } from '../users/user-status.js';
import { checkPinAndAudit } from './check-pin-and-audit.js';
import type { LoginPinCall } from './login-pin-input.js';
import type { LoginPinResult } from './login-pin-result.js';

/** Why a PIN login was refused before its PIN was looked at: each is 401 code 4 to the client, and costs the PIN nothing. */
type DeviceRefusal = 'stale_timestamp' | 'unknown_device' | 'bad_signature' | 'replayed_nonce' | 'user_not_active' | 'device_removed';

/**
 * Logs in by PIN on a bound device (API contract 3.6). The device proves itself first: the
 * timestamp in the window, the device known in this company, its signature, then the nonce taken
 * once; any of these failing is 401 and nothing counts against the PIN. Then the PIN, counted and
 * audited (check-pin-and-audit.ts). The session is granted only while the device is still bound
 * and the login PIN is still the one compared: a removal or a PIN change that committed first
 * refuses it.
 */
export async function loginPin(app: App, { body: input, company, origin, idempotencyRef }: LoginPinCall): Promise<LoginPinResult> {
  const companyId = company.company_id;
  const attemptId = attemptIdOf(idempotencyRef);
  const now = epochSeconds(app.clock);
  const window = app.config.pinLoginWindowSeconds;
  const refused = (reason: DeviceRefusal, userId?: string) => {
    audit(app, origin, 'pin_login_refused', { company_id: companyId, user_id: userId, outcome: reason });
    return new AppError('UNAUTHORIZED', { detail: `device not proven: ${reason}` });
  };

  if (Math.abs(input.timestamp - now) > window) throw refused('stale_timestamp');
  const device = await getDevice(app.table, companyId, input.device_key);
  if (!device) throw refused('unknown_device');
  const text = loginPinText(companyId, input.device_key, input.timestamp, input.nonce);
  if (!signatureMatches(device.public_key, text, input.signature)) throw refused('bad_signature', device.user_id);
  // A nonce outlives the window its timestamp may be in, so it can never be used twice.
  const [fresh, user] = await Promise.all([
    takeNonce(app.table, companyId, input.device_key, input.nonce, now + 2 * window, attemptId),
    getUser(app.table, companyId, device.user_id, true),
  ]);
  if (!fresh) throw refused('replayed_nonce', device.user_id);
  if (user?.status_id !== UserStatus.ACTIVE) throw refused('user_not_active', device.user_id);

  const userId = user.user_id;
  const check = { companyId, userId, pinType: 'login' as const, pin: input.login_pin, storedHash: user.login_pin_hash, attemptId };
  const { clearTries } = await checkPinAndAudit(app, origin, check, 'login_pin');
  const use = deviceUseWrite(app.table, companyId, userId, input.device_key, now);
  let tokens: SessionTokens;
  try {
    tokens = await grantSession(
      app,
      companyId,
      userId,
      user.user_type,
      { began: 'pin', deviceKey: input.device_key, acr: 'strong' },
      {
        terms: { pinVersion: { attribute: PIN_VERSION_ATTRIBUTE.login, seen: user.login_pin_version ?? 0 } },
        items: [
          { label: 'device', item: use },
          { label: 'tries', item: clearTries },
        ],
      },
    );
  } catch (error) {
    // The PIN was right: whatever refused the session, its try does not count toward a lock.
    await givePinTryBack(app.table, check, attemptId).catch(() => undefined);
    if (error instanceof GrantRefused) throw refused('device_removed', userId);
    if (error instanceof AppError && error.errorName === 'UNAUTHORIZED') throw refused('user_not_active', userId);
    throw error;
  }
  audit(app, origin, 'login', { company_id: companyId, user_id: userId, outcome: 'session_started', method: 'pin' });
  return { message: 'Logged in successfully', ...tokens, user_id: userId };
}
