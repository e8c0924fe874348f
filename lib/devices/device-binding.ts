import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { type SessionTokens, sessionIsLive } from '../sessions/access-tokens.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../sessions/end-sessions.js';
import { GrantRefused, type GrantWith, grantSession, type SessionOrigin } from '../sessions/session-grant.js';
import {
  type DeviceLabels,
  deviceBindWrites,
  deviceCountChange,
  deviceRemoveWrites,
  getDevice,
  queryUserDevices,
} from '../store/device-store.js';
import { endSessions, querySessions, type StoredSession, sessionEnd } from '../store/session-store.js';
import { ConditionsFailed, type LabelledItem, writeTransaction } from '../store/transactions.js';
import { getUser } from '../store/user-store.js';
import { UserStatus } from '../users/user-status.js';
import { deviceKeyOf, p256PublicKey, spkiBase64Of } from './device-signatures.js';

// Binding a device (API contract 3.6): a P-256 public key sent with a request that proves the
// user (registration, an OTP login) becomes a device_key, the handle PIN login names. The same
// key bound again by the same user keeps its device_key; a user has at most
// config.maxDevicesPerUser, and binding one more removes the least recently used with its sessions.

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
  items: LabelledItem<'device' | 'session'>[];
  /** The sessions read before, ended in the transaction (or before it, when too many). */
  sessions: StoredSession[];
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
  // Too many for one transaction: ended first (they are ended either way).
  const inTransaction = sessions.length > MAX_SESSIONS_IN_TRANSACTION ? [] : sessions;
  if (!inTransaction.length && sessions.length) {
    await endSessions(
      app.table,
      sessions.map(({ key }) => key),
      deviceRemoved(),
    );
  }
  const { index, listing } = deviceRemoveWrites(app.table, companyId, userId, deviceKey);
  return {
    items: [
      { label: 'device', item: index },
      { label: 'device', item: listing },
      ...inTransaction.map(({ key }) => ({ label: 'session' as const, item: sessionEnd(app.table, key, deviceRemoved()) })),
    ],
    sessions,
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
): Promise<number> {
  const removal = await deviceRemoval(app, companyId, userId, deviceKey);
  const gone = () => new AppError('NOT_FOUND', { detail: 'no such device of this user' });
  if (!removal) throw gone();
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

/**
 * A session for a user who proved themselves (an OTP login) with a device bound in the same
 * transaction: the binding, its NEW_DEVICE notice when the key is new to the user, and the least
 * recently used device removed (with its sessions) when the user already has the most allowed.
 * Concurrent bindings and logins on the removed device make the write fail; it is then read again.
 */
export async function createBoundSession(
  app: App,
  origin: RequestOrigin,
  target: { companyId: string; userId: string; userType: number },
  binding: DeviceBinding,
  start: Omit<SessionOrigin, 'deviceKey'>,
  grant: GrantWith<string>,
): Promise<SessionTokens> {
  const { companyId, userId, userType } = target;
  const max = app.config.maxDevicesPerUser;
  for (let round = 1; ; round++) {
    const devices = await queryUserDevices(app.table, companyId, userId);
    const isNew = !devices.some((device) => device.device_key === binding.deviceKey);
    const nowMs = app.clock.now();
    const now = Math.floor(nowMs / 1000);
    const { index, listing } = deviceBindWrites(app.table, companyId, userId, { ...binding, userType }, now);
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
      // Least recently used first; normally one, more only if the maximum was lowered.
      const leastRecent = [...devices].sort((a, b) => a.last_used_at - b.last_used_at).slice(0, Math.max(0, devices.length - max + 1));
      for (const device of leastRecent) {
        const removal = await deviceRemoval(app, companyId, userId, device.device_key);
        if (removal) {
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
      if (isNew) audit(app, origin, 'device_bound', { ...event, outcome: 'bound', devices_removed: evicted.length });
      else audit(app, origin, 'device_bound', { ...event, outcome: 'bound_again' });
      for (const _ of evicted) audit(app, origin, 'device_removed', { ...event, outcome: 'least_recently_used' });
      return tokens;
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
