import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { type DeviceRecord, getDevice, takeNonce } from '../store/device-store.js';
import { type DeviceSignedPurpose, deviceSignedText, signatureMatches } from './device-signatures.js';

// A bound device proving itself (API contract 3.6 and 3.15): a PIN login and a step-up both take a
// timestamp within PIN_LOGIN_WINDOW_SECONDS, a nonce used once per device and the device's signature
// over its purpose. Any of these failing is 401 code 4, and the PIN is not looked at.

/** Why a device was not proven: each is 401 code 4 to the client, and costs the PIN nothing. */
export type DeviceRefusal =
  | 'stale_timestamp'
  | 'unknown_device'
  | 'bad_signature'
  | 'replayed_nonce'
  | 'user_not_active'
  | 'device_removed'
  | 'not_this_session';

/** What a device signs with, as login_pin and step_up take it. */
export interface DeviceSigned {
  device_key: string;
  timestamp: number;
  nonce: string;
  signature: string;
}

/** Records a refusal and answers its 401. */
export function deviceRefused(app: App, origin: RequestOrigin, companyId: string, reason: DeviceRefusal, userId?: string): AppError {
  audit(app, origin, 'pin_login_refused', { company_id: companyId, user_id: userId, outcome: reason });
  return new AppError('UNAUTHORIZED', { detail: `device not proven: ${reason}` });
}

/**
 * The device, once its timestamp and signature hold (else 401), and its nonce, taken once by a
 * conditional write that runs beside whatever the caller reads next: false when another attempt
 * took it (a replay). A nonce outlives the window its timestamp may be in, so it is never used twice.
 */
export async function provenDevice(
  app: App,
  { companyId, origin, attemptId }: { companyId: string; origin: RequestOrigin; attemptId: string },
  signed: DeviceSigned,
  purpose: DeviceSignedPurpose,
): Promise<{ device: DeviceRecord; nonceTaken: Promise<boolean> }> {
  const now = epochSeconds(app.clock);
  const window = app.config.pinLoginWindowSeconds;
  if (Math.abs(signed.timestamp - now) > window) throw deviceRefused(app, origin, companyId, 'stale_timestamp');
  const device = await getDevice(app.table, companyId, signed.device_key);
  if (!device) throw deviceRefused(app, origin, companyId, 'unknown_device');
  const text = deviceSignedText(purpose, companyId, signed.device_key, signed.timestamp, signed.nonce);
  if (!signatureMatches(device.public_key, text, signed.signature))
    throw deviceRefused(app, origin, companyId, 'bad_signature', device.user_id);
  return { device, nonceTaken: takeNonce(app.table, companyId, signed.device_key, signed.nonce, now + 2 * window, attemptId) };
}
