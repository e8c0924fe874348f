import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { type SessionTokens, sessionIsLive } from '../sessions/access-tokens.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import { GrantRefused, type GrantWith, grantSession, type SessionOrigin } from '../sessions/session-grant.js';
import {
  type DeviceLabels,
  type DeviceRecord,
  deviceBindWrites,
  deviceCountChange,
  deviceRemoveWrites,
  getDevice,
  queryUserDevices,
  type UserDeviceRecord,
} from '../store/device-store.js';
import { endSessions, querySessions, type StoredSession, sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getUser } from '../store/user-store.js';
import { isSettled } from './device-settlement.js';
import { deviceKeyOf, p256PublicKey, spkiBase64Of } from './device-signatures.js';

// Binding a device (API contract 3.6 and 3.15): a P-256 public key sent with a request that proves
// the user (registration, an OTP login) becomes a device_key, the handle PIN login names. The same
// key bound again by the same user keeps its device_key. Bound at registration it is settled; bound
// at an OTP login it is on probation (device-settlement.ts). A user has at most
// config.maxDevicesPerUser, of which at most config.probationDevicesMax on probation; a binding
// removes the oldest on probation to make room, never a settled device.

export interface DeviceBinding {
  deviceKey: string;
  /** Canonical base64 SPKI DER. */
  publicKey: string;
  labels: DeviceLabels;
}

/** What a request asks to bind, if it sent a device_public_key (validated as P-256 by its schema). */
export function deviceBindingOf(
  companyId: string,
  userId: string,
  input: DeviceLabels & { device_public_key?: string | undefined },
): DeviceBinding | undefined {
  const key = input.device_public_key === undefined ? undefined : p256PublicKey(input.device_public_key);
  if (!key) return undefined;
  const publicKey = spkiBase64Of(key);
  return {
    deviceKey: deviceKeyOf(companyId, userId, publicKey),
    publicKey,
    labels: { device_type: input.device_type, device_id: input.device_id, device_unique_id: input.device_unique_id },
  };
}

/** A new user's first device, for the registration's transaction (no list to check: the user is new). */
export function firstDeviceWrites(
  app: Pick<App, 'table'>,
  companyId: string,
  user: { userId: string; userType: number },
  binding: DeviceBinding,
  nowSeconds: number,
): LabelledItem<'device'>[] {
  const { index, listing } = deviceBindWrites(app.table, companyId, user.userId, { ...binding, userType: user.userType }, nowSeconds);
  return [
    { label: 'device', item: index },
    { label: 'device', item: listing },
  ];
}

/** One binding's end: the writes of its transaction, and what to do once that has committed. */
export interface DeviceRemoval {
  /** The device as read (its probation: contract 3.15). */
  device: DeviceRecord;
  items: LabelledItem<'device' | 'session'>[];
  /** The sessions read before, ended in the transaction (or before it, when too many). */
  sessions: StoredSession[];
  /** Before the transaction: ends the sessions too many for it (they are ended either way). Nothing is ended until it runs. */
  endOverflow: () => Promise<void>;
  /** After the commit: ends the sessions granted on the device between the read and the commit; how many. */
  endLateSessions: () => Promise<number>;
}

/**
 * The end of one binding and of every session bound to it, undefined when it is not the user's.
 * The transaction deletes the binding (from then on no session is granted on it: deviceUseWrite)
 * and the sessions read before; a session granted on the device between that read and the commit
 * is found by a second read and ended after. So a flood of PIN logins cannot hold a removal back,
 * and none of them keeps a session on the removed device.
 */
export async function deviceRemoval(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  deviceKey: string,
): Promise<DeviceRemoval | undefined> {
  const deviceRemoved = () => ({ reason: 'device_removed', atMs: app.clock.now() }) as const;
  const [device, sessions] = await Promise.all([
    getDevice(app.table, companyId, deviceKey),
    querySessions(app.table, companyId, userId, deviceKey),
  ]);
  if (!device || device.user_id !== userId) return undefined;
  // Too many for one transaction: ended first (they are ended either way), once the caller commits to it.
  const inTransaction = sessions.length > MAX_SESSIONS_IN_TRANSACTION ? [] : sessions;
  const endOverflow = async () => {
    if (!inTransaction.length && sessions.length) {
      await endSessions(
        app.table,
        sessions.map(({ key }) => key),
        deviceRemoved(),
      );
    }
  };
  const { index, listing } = deviceRemoveWrites(app.table, companyId, userId, deviceKey);
  return {
    device,
    items: [
      { label: 'device', item: index },
      { label: 'device', item: listing },
      ...inTransaction.map(({ key }) => ({ label: 'session' as const, item: sessionEnd(app.table, key, deviceRemoved()) })),
    ],
    sessions,
    endOverflow,
    endLateSessions: async () => {
      const late = await querySessions(app.table, companyId, userId, deviceKey);
      if (late.length) {
        await endSessions(
          app.table,
          late.map(({ key }) => key),
          deviceRemoved(),
        );
      }
      return late.length;
    },
  };
}

/**
 * Removes one of a user's devices (API contract 3.6; the back office's removal too, 3.14): the
 * binding, every session bound to it and one off the user's device count, in one transaction
 * with `also` (items whose conditions always hold, such as a record of the action); sessions a
 * PIN login was granted on it while the removal worked are ended right after. A device that is not
 * the user's (another user's, another company's, already removed): 404 code 6. Answers how many
 * live sessions ended.
 */
export async function removeDevice(
  app: Pick<App, 'table' | 'clock' | 'config'>,
  companyId: string,
  userId: string,
  deviceKey: string,
  also: LabelledItem<string>[] = [],
  /** The removal already read (deviceRemoval), when the caller needed the device first. */
  read?: DeviceRemoval,
): Promise<number> {
  const removal = read ?? (await deviceRemoval(app, companyId, userId, deviceKey));
  const gone = () => new AppError('NOT_FOUND', { detail: 'no such device of this user' });
  if (!removal) throw gone();
  await removal.endOverflow();
  try {
    await writeTransaction<string>(app.table, [
      ...removal.items,
      { label: 'user', item: deviceCountChange(app.table, companyId, userId, -1) },
      ...also,
    ]);
  } catch (error) {
    // Removed meanwhile by another removal or a binding's least-recently-used turn.
    if (error instanceof ConditionsFailed && error.labels.includes('device')) throw gone();
    throw error;
  }
  const late = await removal.endLateSessions();
  const now = epochSeconds(app.clock);
  const live = removal.sessions.filter(({ expiresAt, lastUsedAt }) =>
    sessionIsLive(expiresAt, lastUsedAt, now, app.config.sessionIdleSeconds),
  );
  return late + live.length;
}

const MAX_ROUNDS = 5;

/** A session an OTP login granted with a device to bind: the device bound (on probation if new), or refused for want of a slot. */
export type BoundSession = SessionTokens & ({ deviceKey: string; newDevice: boolean } | { deviceKey?: undefined; deviceRefused: true });

/**
 * Which devices a new binding on probation removes (API contract 3.15, second reading): never a
 * settled one. The oldest on probation go while PROBATION_DEVICES_MAX would be passed, then while
 * MAX_DEVICES_PER_USER would; undefined when every slot holds a settled device (DEVICE_LIMIT).
 */
export function probationRemovals(
  config: Pick<Config, 'credentialProbationHours' | 'probationDevicesMax' | 'maxDevicesPerUser'>,
  devices: UserDeviceRecord[],
  userType: number,
  now: number,
): UserDeviceRecord[] | undefined {
  const onProbation = devices.filter((device) => !isSettled(config, device, userType, now)).sort((a, b) => a.created_at - b.created_at);
  const overProbation = Math.max(0, onProbation.length - config.probationDevicesMax + 1);
  const overAll = Math.max(0, devices.length - config.maxDevicesPerUser + 1);
  const removed = onProbation.slice(0, Math.max(overProbation, overAll));
  return devices.length - removed.length < config.maxDevicesPerUser ? removed : undefined;
}

/**
 * A session for a user who proved the phone (an OTP login) with a device bound in the same
 * transaction: the binding (a new key on probation, contract 3.15), its NEW_DEVICE notice, and the
 * oldest devices on probation removed (with their sessions) where a slot is needed. A settled device
 * is never removed: when every slot holds one, the session is granted with no device bound
 * (deviceRefused: 409 code 22 to the app, the login itself succeeds). Concurrent bindings and logins
 * on a removed device make the write fail; it is then read again.
 */
export async function createBoundSession(
  app: App,
  origin: RequestOrigin,
  target: { companyId: string; userId: string; userType: number },
  binding: DeviceBinding,
  start: Omit<SessionOrigin, 'deviceKey'>,
  grant: GrantWith<string>,
): Promise<BoundSession> {
  const { companyId, userId, userType } = target;
  const max = app.config.maxDevicesPerUser;
  for (let round = 1; ; round++) {
    const devices = await queryUserDevices(app.table, companyId, userId);
    const isNew = !devices.some((device) => device.device_key === binding.deviceKey);
    const nowMs = app.clock.now();
    const now = Math.floor(nowMs / 1000);
    const removals = isNew ? probationRemovals(app.config, devices, userType, now) : [];
    if (!removals) {
      audit(app, origin, 'device_bound', { company_id: companyId, user_id: userId, outcome: 'device_limit' });
      const tokens = await grantSession(app, companyId, userId, userType, start, grant);
      return { ...tokens, deviceRefused: true };
    }
    const { index, listing } = deviceBindWrites(app.table, companyId, userId, { ...binding, userType, probation: isNew }, now);
    const items: LabelledItem<string>[] = [{ label: 'device', item: index }, { label: 'device', item: listing }, ...(grant.items ?? [])];
    let terms = grant.terms ?? {};
    const evicted: DeviceRemoval[] = [];
    if (isNew) {
      items.push(
        ...securityNotificationWrites(app.table, companyId, userId, { event: SecurityEvent.NEW_DEVICE, nowMs }).map((item) => ({
          label: 'notification',
          item,
        })),
      );
      for (const device of removals) {
        const removal = await deviceRemoval(app, companyId, userId, device.device_key);
        if (removal) {
          await removal.endOverflow();
          items.push(...removal.items.map(({ item }) => ({ label: 'evicted', item })));
          evicted.push(removal);
        }
      }
      // One in, as many out: only a binding that removes none can reach the maximum.
      terms = { ...terms, deviceCount: evicted.length ? { add: 1 - evicted.length } : { add: 1, max } };
    }
    try {
      const tokens = await grantSession(app, companyId, userId, userType, { ...start, deviceKey: binding.deviceKey }, { terms, items });
      for (const removal of evicted) await removal.endLateSessions();
      const event = { company_id: companyId, user_id: userId };
      if (isNew) audit(app, origin, 'device_bound', { ...event, outcome: 'bound_on_probation', devices_removed: evicted.length });
      else audit(app, origin, 'device_bound', { ...event, outcome: 'bound_again' });
      for (const _ of evicted) audit(app, origin, 'device_removed', { ...event, outcome: 'oldest_on_probation' });
      return { ...tokens, deviceKey: binding.deviceKey, newDevice: isNew };
    } catch (error) {
      if (!(error instanceof GrantRefused) || round >= MAX_ROUNDS) throw error;
      if (error.labels.includes('user')) {
        // The device count raced another binding, or the user is no longer active.
        const user = await getUser(app.table, companyId, userId, true);
        if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
      }
    }
  }
}
