import { EVENT_SOURCE, EVENT_TYPES } from '../../lib/events/event-types.js';
import { pinTriesKey, SESSION_PREFIX, USER_DEVICE_PREFIX, USER_SORT_KEY, userPartitionPrefix } from '../../lib/store/keys.js';
import { PIN_VERSION_ATTRIBUTE, type PinType } from '../../lib/store/pin-store.js';
import { SESSION_END_REASONS } from '../../lib/store/session-store.js';
import { UserStatus } from '../../lib/store/user-status.js';
import type { DeadLetter, DeliveredEvent } from './eventbridge-fake.js';
import type { StoredItem } from './table-snapshot.js';

// The events of API contract 3.13 checked against a company's items as stored (issue 31): the
// events are what reached the bus and the dead-letter queue, counted once per event_id as a
// subscriber keeps them. Every committed change the table proves has its event, and no event
// names a change the table does not hold. No vitest here: scripts/chaos.ts uses it too.

/** One event as the check reads it, from the bus or from a dead letter (the entry it could not put). */
export interface SeenEvent {
  type: string;
  source: string;
  detail: Record<string, any>;
  via: 'bus' | 'dead-letter';
}

export interface EventCheck {
  /** Events as received (bus and dead letters, copies included), and once per event_id. */
  received: number;
  distinct: number;
  deadLettered: number;
  /** Distinct events by detail-type. */
  byType: Record<string, number>;
  /** What the table proves and was found: users, sessions marked ended while live, devices listed, phone changes, status changes, PINs locked. */
  proven: Proven;
  /** A description of each broken rule; empty when all hold. */
  problems: string[];
}

export interface Proven {
  users: number;
  sessionsEnded: number;
  devices: number;
  phoneChanges: number;
  statuses: number;
  profileUpdates: number;
  pinLocks: number;
}

/** What the flows know that the table cannot show: the users whose profile update was answered 200. */
export interface AnsweredChanges {
  profileUpdated?: Iterable<string>;
}

/** The events a loopback EventBridge received: those on the bus and those in its dead-letter queue. */
export function seenEvents(source: { events: DeliveredEvent[]; deadLetters: DeadLetter[] }): SeenEvent[] {
  const seen: SeenEvent[] = source.events.map((event) => ({
    type: event['detail-type'],
    source: event.source,
    detail: event.detail,
    via: 'bus',
  }));
  for (const letter of source.deadLetters) {
    // The publisher's dead letter: { event_id, error, entry } with the PutEvents entry as it was to be put.
    const body = JSON.parse(letter.body) as { entry?: { Source?: string; DetailType?: string; Detail?: string } };
    seen.push({
      type: String(body.entry?.DetailType),
      source: String(body.entry?.Source),
      detail: JSON.parse(body.entry?.Detail ?? '{}'),
      via: 'dead-letter',
    });
  }
  return seen;
}

const STATUS_OF_EVENT: Record<string, number> = {
  'user.disabled': UserStatus.DISABLED,
  'user.deleted': UserStatus.DELETION_REQUESTED,
  'user.erased': UserStatus.ERASED,
  'user.restored': UserStatus.ACTIVE,
  'user.enabled': UserStatus.ACTIVE,
};
const EVENT_OF_STATUS = new Map(
  Object.entries(STATUS_OF_EVENT)
    .filter(([type]) => type !== 'user.restored' && type !== 'user.enabled')
    .map(([type, status]) => [status, type]),
);
/** A signed access token's sid (32 hex): the sessions session.ended names (lib/events/stream-events.ts). */
const ACCESS_TOKEN_SID = /^[0-9a-f]{32}$/;
const PROFILE_FIELDS = new Set(['first_name', 'last_name', 'email', 'image', 'birth_date', 'location_point']);
const PIN_TYPES: readonly PinType[] = ['login', 'transaction'];

/**
 * Compares a company's items with the events seen. Each user item has one user.registered; each
 * session marked ended while live one session.ended with its sid and reason; a user's devices listed
 * are its device.added less its device.removed; a disabled, deleted or erased user has that event
 * (a deleted one with its erase_after); a user whose phone moved (phone_changed_from) has
 * user.phone_changed; a user answered a profile update has user.profile_updated; a PIN whose tries item
 * is marked locked_at has pin.locked with its pin_type and that time. The other way: every
 * event is of the company's source and type with its base fields, names a stored user, and says what
 * the table holds (a session.ended's sid is a session marked with that reason, a status event is the
 * user's last status, a user.phone_changed's user moved, a pin.locked's PIN is locked at its time
 * or was opened since); one event_id is one event.
 */
export function eventCheck(items: StoredItem[], companyId: string, seen: SeenEvent[], answered: AnsweredChanges = {}): EventCheck {
  const problems: string[] = [];
  const prefix = userPartitionPrefix(companyId);
  const userOf = (item: StoredItem) => (item.pk.startsWith(prefix) ? item.pk.slice(prefix.length) : undefined);
  const users = new Map(
    items.filter((item) => item.sk === USER_SORT_KEY && userOf(item) !== undefined).map((item) => [userOf(item)!, item]),
  );
  const sessions = new Map(
    items.filter((item) => item.sk.startsWith(SESSION_PREFIX) && userOf(item)).map((item) => [`${userOf(item)} ${item.sk}`, item]),
  );
  const devicesOf = new Map<string, number>();
  for (const item of items) {
    const user = userOf(item);
    if (user && item.sk.startsWith(USER_DEVICE_PREFIX)) devicesOf.set(user, (devicesOf.get(user) ?? 0) + 1);
  }

  // Once per event_id; copies must be the same event.
  const byId = new Map<string, SeenEvent>();
  let deadLettered = 0;
  for (const event of seen) {
    if (event.via === 'dead-letter') deadLettered++;
    const id = event.detail.event_id;
    if (typeof id !== 'string' || !id) {
      problems.push(`a ${event.type} event has no event_id`);
      continue;
    }
    const first = byId.get(id);
    if (!first) byId.set(id, event);
    else if (first.type !== event.type || JSON.stringify(first.detail) !== JSON.stringify(event.detail))
      problems.push(`event ${id} came twice as different events (${first.type}, ${event.type})`);
  }
  const events = [...byId.values()];
  const byType: Record<string, number> = {};
  const ofUser = new Map<string, SeenEvent[]>();
  for (const event of events) {
    byType[event.type] = (byType[event.type] ?? 0) + 1;
    const { detail } = event;
    const what = `${event.type} ${detail.event_id}`;
    if (event.source !== EVENT_SOURCE) problems.push(`${what} has source ${event.source}`);
    if (!(EVENT_TYPES as readonly string[]).includes(event.type)) problems.push(`${what} is of no type of contract 3.13`);
    if (detail.company_id !== companyId) problems.push(`${what} names company ${detail.company_id}`);
    if (typeof detail.occurred_at !== 'number' || !Number.isFinite(detail.occurred_at)) problems.push(`${what} has no occurred_at`);
    if (!users.has(detail.user_id)) problems.push(`${what} names user ${detail.user_id}, not stored`);
    ofUser.set(detail.user_id, [...(ofUser.get(detail.user_id) ?? []), event]);
  }
  const count = (userId: string, type: string) => (ofUser.get(userId) ?? []).filter((event) => event.type === type);

  const proven: Proven = { users: 0, sessionsEnded: 0, devices: 0, phoneChanges: 0, statuses: 0, profileUpdates: 0, pinLocks: 0 };
  /**
   * A PIN's tallies of tries (lib/store/pin-store.ts; per device or session strength since contract
   * 3.15): each one's locked_at, in epoch seconds, marks a lock of that tally.
   */
  const locksOf = (userId: string, pinType: PinType): number[] => {
    const { pk, sk } = pinTriesKey(companyId, userId, pinType);
    return items
      .filter((item) => item.pk === pk && (item.sk === sk || item.sk.startsWith(`${sk}#`)) && item.locked_at !== undefined)
      .map((item) => Number(item.locked_at));
  };

  // The table's side: each change it proves has its event.
  for (const [userId, user] of users) {
    proven.users++;
    const registered = count(userId, 'user.registered').length;
    if (registered !== 1) problems.push(`user ${userId} has ${registered} user.registered events, not 1`);
    if (user.phone_changed_from !== undefined) {
      proven.phoneChanges++;
      if (!count(userId, 'user.phone_changed').length) problems.push(`user ${userId} moved from a number with no user.phone_changed`);
    }
    const statusEvent = EVENT_OF_STATUS.get(Number(user.status_id));
    if (statusEvent) {
      proven.statuses++;
      const found = count(userId, statusEvent);
      if (!found.length) problems.push(`user ${userId} of status ${user.status_id} has no ${statusEvent}`);
      if (statusEvent === 'user.deleted' && !found.some((event) => event.detail.erase_after === user.erase_after))
        problems.push(`user ${userId}'s user.deleted does not say its erase_after ${user.erase_after}`);
    }
    for (const pinType of PIN_TYPES) {
      for (const locked of locksOf(userId, pinType)) {
        proven.pinLocks++;
        const found = count(userId, 'pin.locked').filter((event) => event.detail.pin_type === pinType);
        if (!found.some((event) => event.detail.occurred_at === locked * 1000))
          problems.push(`user ${userId}'s ${pinType} PIN is locked (at ${locked}) with no pin.locked at that time`);
      }
    }
    const devices = devicesOf.get(userId) ?? 0;
    proven.devices += devices;
    const net = count(userId, 'device.added').length - count(userId, 'device.removed').length;
    if (net !== devices) problems.push(`user ${userId} lists ${devices} devices, its events add ${net}`);
  }
  for (const userId of new Set(answered.profileUpdated ?? [])) {
    proven.profileUpdates++;
    if (!count(userId, 'user.profile_updated').length) problems.push(`user ${userId} was answered a profile update with no event`);
  }
  const endedSids = new Map<string, SeenEvent[]>();
  for (const event of events.filter((each) => each.type === 'session.ended')) {
    const key = `${event.detail.user_id} ${SESSION_PREFIX}${event.detail.sid}`;
    endedSids.set(key, [...(endedSids.get(key) ?? []), event]);
  }
  for (const [key, session] of sessions) {
    if (session.ended_reason === undefined) continue;
    // Past its time it had run out already: ending it then is no news (lib/events/stream-events.ts).
    if (typeof session.expires_at === 'number' && session.expires_at * 1000 <= Number(session.ended_at_ms)) continue;
    // An opaque token's session is keyed by the token's SHA-256, which is never published: no event.
    if (!ACCESS_TOKEN_SID.test(key.slice(key.indexOf(SESSION_PREFIX) + SESSION_PREFIX.length))) continue;
    // A session whose grant was refused after its put (grant_refused) was never held by anyone: no event, by design.
    const published = (SESSION_END_REASONS as readonly unknown[]).includes(session.ended_reason);
    if (published) proven.sessionsEnded++;
    const found = endedSids.get(key) ?? [];
    if (found.length !== (published ? 1 : 0)) {
      const [userId, sk] = key.split(' ') as [string, string];
      problems.push(
        `user ${userId}'s session ${sk.slice(SESSION_PREFIX.length)} ended (${session.ended_reason}) with ${found.length} session.ended events`,
      );
    }
  }

  /**
   * A pin.locked stands when its PIN's tries item is locked at the event's time, or when the table
   * shows the lock opened since (opening deletes the tries item, so only its traces remain, to the
   * second): for the login PIN a session begun by OTP login (which clears its tries) or by PIN login
   * (a right PIN compared just before the lock clears them as it commits) at or after the lock; for
   * either PIN a change or reset of it (its version above 0, the record updated at or after the lock);
   * or the user erased (its PINs deleted).
   */
  const lockStands = (userId: string, pinType: PinType, occurredAt: number) => {
    if (locksOf(userId, pinType).includes(occurredAt / 1000)) return true;
    const user = users.get(userId)!;
    const atSecond = Math.floor(occurredAt / 1000);
    if (Number(user.status_id) === UserStatus.ERASED) return true;
    if (Number(user[PIN_VERSION_ATTRIBUTE[pinType]] ?? 0) > 0 && Number(user.updated_at) >= atSecond) return true;
    if (pinType !== 'login') return false;
    for (const [key, session] of sessions)
      if (key.startsWith(`${userId} `) && (session.began === 'otp' || session.began === 'pin') && Number(session.created_at) >= atSecond)
        return true;
    return false;
  };

  // The events' side: each says what the table holds.
  for (const event of events) {
    const { detail } = event;
    const user = users.get(detail.user_id);
    if (!user) continue;
    const what = `${event.type} ${detail.event_id}`;
    if (event.type === 'session.ended') {
      const session = sessions.get(`${detail.user_id} ${SESSION_PREFIX}${detail.sid}`);
      if (!(SESSION_END_REASONS as readonly string[]).includes(detail.reason)) problems.push(`${what} has reason ${detail.reason}`);
      if (!session) problems.push(`${what} names session ${detail.sid}, not stored`);
      else if (session.ended_reason !== detail.reason)
        problems.push(`${what} says ${detail.reason}, session ${detail.sid} is marked ${session.ended_reason ?? 'live'}`);
    } else if (event.type === 'user.phone_changed') {
      if (user.phone_changed_from === undefined) problems.push(`${what}: user ${detail.user_id} never moved from a number`);
    } else if (event.type === 'user.profile_updated') {
      const changed = detail.changed as unknown;
      if (!Array.isArray(changed) || !changed.length || changed.some((field) => !PROFILE_FIELDS.has(field)))
        problems.push(`${what} names changed fields ${JSON.stringify(changed)}`);
    } else if (event.type in STATUS_OF_EVENT) {
      // The user's last status event is its status now (a reclaim, status 3, has no event of its own).
      const last = (ofUser.get(detail.user_id) ?? [])
        .filter((each) => each.type in STATUS_OF_EVENT)
        .sort((a, b) => a.detail.occurred_at - b.detail.occurred_at)
        .at(-1)!;
      const status = Number(user.status_id ?? UserStatus.ACTIVE);
      if (last === event && status !== UserStatus.PHONE_RECLAIMED && STATUS_OF_EVENT[event.type] !== status)
        problems.push(`${what} is user ${detail.user_id}'s last status event, its status is ${status}`);
    } else if (event.type === 'pin.locked') {
      if (!PIN_TYPES.includes(detail.pin_type)) problems.push(`${what} has pin_type ${detail.pin_type}`);
      else if (!lockStands(detail.user_id, detail.pin_type, detail.occurred_at))
        problems.push(
          `${what}: user ${detail.user_id}'s ${detail.pin_type} PIN is not locked at ${detail.occurred_at / 1000}, nor opened since`,
        );
    }
  }

  return { received: seen.length, distinct: events.length, deadLettered, byType, proven, problems };
}
