import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { deleteDueAccount } from '../deletion/account-deletion.js';
import { type DeviceRefusal, deviceRefused, provenDevice } from '../devices/device-proof.js';
import { removeDueDevice } from '../devices/device-removal-change.js';
import { isSettled } from '../devices/device-settlement.js';
import { AppError } from '../errors.js';
import { audit } from '../observability/audit.js';
import { type NotMeUndo, notMeUndo } from '../security/not-me.js';
import type { SessionTokens } from '../sessions/access-tokens.js';
import { GrantRefused, grantSession } from '../sessions/session-grant.js';
import { loginSessionKey } from '../sessions/session-key.js';
import { needs } from '../sessions/session-strength.js';
import { attemptIdOf } from '../store/attempt-sets.js';
import { deviceUseWrite, queryDevicesAndChanges } from '../store/device-store.js';
import { type PendingChange, withKind } from '../store/pending-change-store.js';
import { PIN_VERSION_ATTRIBUTE } from '../store/pin-store.js';
import type { LabelledItem } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { checkPinAndAudit, devicePinCheck } from './check-pin-and-audit.js';
import { PIN_SETUP_DETAIL, withDuePinApplied } from './held-pins.js';
import type { LoginPinCall } from './login-pin-input.js';
import type { LoginPinResult } from './login-pin-result.js';
import { grantWithOwnerWrites, loginAnswer, ownerPresentWrites } from './owner-login.js';

/**
 * Logs in by PIN on a bound device (API contract 3.6 and 3.15). The device proves itself first: the
 * timestamp in the window, the device known in this company, its signature, then the nonce taken
 * once; any of these failing is 401 and nothing counts against the PIN. A removal of this device
 * that was held and is due takes effect now (401). Then the PIN, counted on this device's own tally
 * (and on the day's cap when the device was bound after the latest right PIN) and audited. A
 * settled device begins a strong session, which also holds every device still in its probation
 * window (the owner is present) and voids a held reset of the login PIN (the owner knows it); a
 * device on probation begins an SMS-strength one. The session is granted only while the device is
 * still bound and the login PIN is still the one compared. The answer lists what waits and which
 * devices are on probation, so the owner's app can say so.
 */
export async function loginPin(app: App, call: LoginPinCall): Promise<LoginPinResult> {
  const { body: input, company, origin, idempotencyRef } = call;
  const companyId = company.company_id;
  const attemptId = attemptIdOf(idempotencyRef);
  const now = epochSeconds(app.clock);
  const refused = (reason: DeviceRefusal, userId?: string) => deviceRefused(app, origin, companyId, reason, userId);
  const { device, nonceTaken } = await provenDevice(app, { companyId, origin, attemptId }, input, 'login_pin');
  const [fresh, read, held] = await Promise.all([
    nonceTaken,
    getUser(app.table, companyId, device.user_id, true),
    queryDevicesAndChanges(app.table, companyId, device.user_id),
  ]);
  if (!fresh) throw refused('replayed_nonce', device.user_id);
  // The session's key is the device's own (DPoP, contract 3.17): checked before the PIN counts.
  const dpopJkt = await loginSessionKey(call, device.public_key);
  if (read?.status_id !== UserStatus.ACTIVE) throw refused('user_not_active', device.user_id);
  const changes = held.changes.map((item) => withKind(item)!);
  if (await removeDueDevice(app, origin, read, changes, input.device_key)) throw refused('device_removed', read.user_id);
  // A held deletion that is due lands now (contract 3.15, second reading): no session for the deleted.
  if (await deleteDueAccount(app, origin, companyId, read.user_id, changes)) throw refused('user_not_active', read.user_id);
  const user = await withDuePinApplied(app, origin, read, changes, 'login');
  // A login PIN staff chose at registration opens nothing: the user sets their own first (contract 3.15).
  if (user.login_pin_to_set) throw needs('pin_setup', PIN_SETUP_DETAIL);

  const userId = user.user_id;
  const settled = isSettled(app.config, device, user.user_type, now);
  if (input.not_me && !settled) throw needs('strong', '"Not me" needs a settled device: this one is on probation');
  // The day's cap counts the devices bound after the latest right PIN: a swapper's, never the owner's.
  const daily = device.created_at > (user.login_pin_right_at ?? user.created_at);
  const check = devicePinCheck(user, input, attemptId, daily);
  const rightPin = await checkPinAndAudit(app, origin, check, 'login_pin');
  const items: LabelledItem<string>[] = [
    { label: 'device', item: deviceUseWrite(app.table, companyId, userId, input.device_key, now) },
    ...rightPin.writes.map((write) => ({ label: 'tries', ...write })),
  ];
  const mine = { devices: held.devices, changes };
  let voided: PendingChange[] = [];
  let undo: NotMeUndo | undefined;
  if (settled && input.not_me) {
    // "Not me" with the login: what it undoes commits with the session (voids and holds are part of it).
    undo = await notMeUndo(app, user, mine, idempotencyRef);
    items.push(...undo.items.map(({ item }) => ({ label: 'not_me', item })));
    voided = changes;
  } else if (settled) {
    const owner = ownerPresentWrites(app, user, mine, idempotencyRef, now);
    items.push(...owner.items);
    voided = owner.voided;
  }
  const grant = (withItems: LabelledItem<string>[]) =>
    grantSession(
      app,
      companyId,
      userId,
      user.user_type,
      { began: 'pin', deviceKey: input.device_key, acr: settled ? 'strong' : 'sms', credentialAt: device.created_at, dpopJkt },
      {
        terms: {
          pinVersion: { attribute: PIN_VERSION_ATTRIBUTE.login, seen: user.login_pin_version ?? 0 },
          stamps: { login_pin_right_at: now, ...(settled ? { strong_login_at: now } : {}) },
          ...(undo?.devicesRemoved ? { deviceCount: { add: -undo.devicesRemoved } } : {}),
        },
        items: withItems,
        // The usual login (nothing held, voided or undone): the device and its tally are each a
        // check and a write of one item, so the grant goes in steps, 6 WRU in all instead of 10.
        inSteps: withItems.every(({ label }) => label === 'device' || label === 'tries'),
      },
    );
  let tokens: SessionTokens;
  try {
    const granted = await grantWithOwnerWrites(grant, items);
    tokens = granted.tokens;
    if (!granted.ownerWritesKept) voided = [];
  } catch (error) {
    // The PIN was right: whatever refused the session, its try does not count toward a lock.
    await rightPin.giveBack();
    if (error instanceof GrantRefused) throw refused('device_removed', userId);
    if (error instanceof AppError && error.errorName === 'UNAUTHORIZED') throw refused('user_not_active', userId);
    throw error;
  }
  audit(app, origin, 'login', {
    company_id: companyId,
    user_id: userId,
    outcome: 'session_started',
    method: 'pin',
    acr: settled ? 'strong' : 'sms',
  });
  return loginAnswer(app, origin, user, { tokens, undo, held: mine, voided, now });
}
