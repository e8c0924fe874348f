// The check `npm run chaos` ends with for the events (tests/harness/event-check.ts), on tables and
// events built by hand: a sound pair passes, and each broken rule, either way, is named.
import { describe, expect, it } from 'vitest';
import { pinTriesKey, sessionKey, userDeviceKey, userKey } from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { eventCheck, type SeenEvent, seenEvents } from '../harness/event-check.js';
import type { StoredItem } from '../harness/table-snapshot.js';

const company = 'c1';
const [SID1, SID2, SID3] = ['a1', 'b2', 'c3'].map((start) => start.padEnd(32, '0')) as [string, string, string];
/** An opaque token's session: keyed by the token's SHA-256. */
const OPAQUE = 'd'.repeat(64);
const user = (id: string, fields: Record<string, unknown> = {}): StoredItem => ({
  ...userKey(company, id),
  user_id: id,
  status_id: UserStatus.ACTIVE,
  ...fields,
});
const session = (userId: string, sid: string, fields: Record<string, unknown> = {}): StoredItem => ({
  ...sessionKey(company, userId, sid),
  expires_at: 2_000_000_000,
  ...fields,
});
let serial = 0;
const event = (type: string, userId: string, fields: Record<string, unknown> = {}, via: SeenEvent['via'] = 'bus'): SeenEvent => ({
  type,
  source: 'wallet.auth',
  detail: { event_id: `e${++serial}`, company_id: company, user_id: userId, occurred_at: 1_700_000_000_000 + serial, ...fields },
  via,
});

function sound(): { items: StoredItem[]; events: SeenEvent[] } {
  return {
    items: [
      user('u1', { phone_changed_from: '+12025550100' }),
      session('u1', SID1, { ended_reason: 'logout', ended_at_ms: 1_700_000_000_000 }),
      session('u1', SID2),
      // An opaque token's session, ended: no event is due (its id is a hash, never published).
      session('u1', OPAQUE, { ended_reason: 'logout', ended_at_ms: 1_700_000_000_000 }),
      { ...userDeviceKey(company, 'u1', 'd1') },
      // u1's login PIN is locked (epoch seconds): its pin.locked says so at that time.
      { ...pinTriesKey(company, 'u1', 'login'), tries: new Set(['a', 'b', 'c']), locked_at: 1_700_000_100 },
      user('u2', { status_id: UserStatus.DELETION_REQUESTED, erase_after: 1_800_000_000 }),
      // Ended after it had run out: no event is due.
      session('u2', SID3, { expires_at: 1_600_000_000, ended_reason: 'deleted', ended_at_ms: 1_700_000_000_000 }),
    ],
    events: [
      event('user.registered', 'u1'),
      event('session.ended', 'u1', { sid: SID1, reason: 'logout' }),
      event('device.added', 'u1', {}, 'dead-letter'),
      event('user.phone_changed', 'u1'),
      event('user.profile_updated', 'u1', { changed: ['first_name'] }),
      event('pin.locked', 'u1', { pin_type: 'login', occurred_at: 1_700_000_100_000 }),
      event('user.registered', 'u2'),
      event('device.added', 'u2'),
      event('device.removed', 'u2'),
      event('user.deleted', 'u2', { erase_after: 1_800_000_000 }),
    ],
  };
}

describe('the events check', () => {
  it('finds nothing when every change has its event and every event its change; copies count once', () => {
    const { items, events } = sound();
    const check = eventCheck(items, company, [...events, events[1]!], { profileUpdated: ['u1'] });
    expect(check.problems).toEqual([]);
    expect(check).toMatchObject({
      received: 11,
      distinct: 10,
      deadLettered: 1,
      proven: { users: 2, sessionsEnded: 1, devices: 1, phoneChanges: 1, statuses: 1, profileUpdates: 1, pinLocks: 1 },
    });
    expect(check.byType).toMatchObject({ 'user.registered': 2, 'session.ended': 1, 'device.added': 2 });
  });

  it('names each committed change with no event', () => {
    const { items, events } = sound();
    const without = (type: string) => events.filter((each) => each.type !== type);
    expect(eventCheck(items, company, without('session.ended')).problems).toEqual([
      `user u1's session ${SID1} ended (logout) with 0 session.ended events`,
    ]);
    expect(eventCheck(items, company, without('user.registered')).problems).toEqual([
      'user u1 has 0 user.registered events, not 1',
      'user u2 has 0 user.registered events, not 1',
    ]);
    expect(eventCheck(items, company, without('user.phone_changed')).problems).toEqual([
      'user u1 moved from a number with no user.phone_changed',
    ]);
    expect(eventCheck(items, company, without('user.deleted')).problems).toEqual([
      'user u2 of status 4 has no user.deleted',
      "user u2's user.deleted does not say its erase_after 1800000000",
    ]);
    expect(eventCheck(items, company, without('device.added')).problems).toEqual([
      'user u1 lists 1 devices, its events add 0',
      'user u2 lists 0 devices, its events add -1',
    ]);
    expect(eventCheck(items, company, without('user.profile_updated'), { profileUpdated: ['u1'] }).problems).toEqual([
      'user u1 was answered a profile update with no event',
    ]);
    expect(eventCheck(items, company, without('pin.locked')).problems).toEqual([
      "user u1's login PIN is locked (at 1700000100) with no pin.locked at that time",
    ]);
    // A pin.locked of the other PIN, or of another time, is not this lock's.
    const otherLock = (fields: Record<string, unknown>) =>
      events.map((each) => (each.type === 'pin.locked' ? { ...each, detail: { ...each.detail, ...fields } } : each));
    expect(eventCheck(items, company, otherLock({ occurred_at: 1_700_000_050_000 })).problems).toEqual([
      "user u1's login PIN is locked (at 1700000100) with no pin.locked at that time",
      expect.stringMatching(/^pin\.locked e\d+: user u1's login PIN is not locked at 1700000050, nor opened since$/),
    ]);
    expect(eventCheck(items, company, otherLock({ pin_type: 'transaction' })).problems).toEqual([
      "user u1's login PIN is locked (at 1700000100) with no pin.locked at that time",
      expect.stringMatching(/: user u1's transaction PIN is not locked at 1700000100, nor opened since$/),
    ]);
  });

  it('owes no session.ended to a session whose grant was refused after its put (grant_refused), and names one published', () => {
    const { items, events } = sound();
    const refused = [...items, session('u1', SID3, { ended_reason: 'grant_refused', ended_at_ms: 1_700_000_000_000 })];
    expect(eventCheck(refused, company, events).problems).toEqual([]);
    expect(eventCheck(refused, company, [...events, event('session.ended', 'u1', { sid: SID3, reason: 'logout' })]).problems).toEqual([
      `user u1's session ${SID3} ended (grant_refused) with 1 session.ended events`,
      expect.stringMatching(new RegExp(`^session\\.ended e\\d+ says logout, session ${SID3} is marked grant_refused$`)),
    ]);
  });

  it('takes a pin.locked whose lock the table shows opened since, and names one it does not', () => {
    const { items, events } = sound();
    // u2's login PIN locked at 1_700_000_200; its tries item is gone (deleted when the lock opened).
    const locked = event('pin.locked', 'u2', { pin_type: 'login', occurred_at: 1_700_000_200_000 });
    const lockedTransaction = event('pin.locked', 'u2', { pin_type: 'transaction', occurred_at: 1_700_000_200_000 });
    const problems = (extra: StoredItem[], userFields: Record<string, unknown> = {}, seen = [locked]) =>
      eventCheck([...items.map((item) => (item.user_id === 'u2' ? { ...item, ...userFields } : item)), ...extra], company, [
        ...events,
        ...seen,
      ]).problems;
    expect(problems([])).toEqual([expect.stringMatching(/: user u2's login PIN is not locked at 1700000200, nor opened since$/)]);
    // An OTP login at or after the lock cleared it; one before did not.
    expect(problems([session('u2', OPAQUE, { began: 'otp', created_at: 1_700_000_200 })])).toEqual([]);
    expect(problems([session('u2', OPAQUE, { began: 'otp', created_at: 1_700_000_199 })])).toHaveLength(1);
    // A registration's session opens nothing.
    expect(problems([session('u2', OPAQUE, { began: 'register', created_at: 1_700_000_300 })])).toHaveLength(1);
    // A reset of the PIN since (its version counted, the record updated after the lock).
    expect(problems([], { login_pin_version: 1, updated_at: 1_700_000_300 })).toEqual([]);
    expect(problems([], { login_pin_version: 1, updated_at: 1_700_000_100 })).toHaveLength(1);
    // The transaction PIN is opened by its reset only, not by a login.
    expect(problems([session('u2', OPAQUE, { began: 'otp', created_at: 1_700_000_300 })], {}, [lockedTransaction])).toHaveLength(1);
    expect(problems([], { transaction_pin_version: 2, updated_at: 1_700_000_300 }, [lockedTransaction])).toEqual([]);
  });

  it('names each event of a change the table does not hold', () => {
    const { items, events } = sound();
    const check = (extra: SeenEvent) => eventCheck(items, company, [...events, extra]).problems;
    expect(check(event('session.ended', 'u1', { sid: SID2, reason: 'logout' }))).toEqual([
      expect.stringMatching(/^session\.ended e\d+ says logout, session [0-9a-f]{32} is marked live$/),
    ]);
    expect(check(event('session.ended', 'u1', { sid: SID1, reason: 'logout_all' }))).toEqual([
      `user u1's session ${SID1} ended (logout) with 2 session.ended events`,
      expect.stringMatching(/says logout_all, session [0-9a-f]{32} is marked logout$/),
    ]);
    expect(check(event('user.registered', 'ghost'))).toEqual([expect.stringMatching(/names user ghost, not stored$/)]);
    expect(check(event('user.phone_changed', 'u2'))).toEqual([expect.stringMatching(/user u2 never moved from a number$/)]);
    expect(check(event('user.disabled', 'u2'))).toEqual([expect.stringMatching(/is user u2's last status event, its status is 4$/)]);
    expect(check(event('user.profile_updated', 'u2', { changed: ['password_hash'] }))).toEqual([
      expect.stringMatching(/names changed fields \["password_hash"\]$/),
    ]);
    expect(check({ ...event('device.added', 'u1'), source: 'elsewhere' })).toEqual([
      expect.stringMatching(/has source elsewhere$/),
      'user u1 lists 1 devices, its events add 2',
    ]);
    // One event_id carrying two different events.
    expect(check({ ...events[0]!, detail: { ...events[0]!.detail, user_id: 'u2' } })).toEqual([
      expect.stringMatching(/came twice as different events/),
    ]);
  });

  it('reads the dead letters the publisher writes as the entries it could not put', () => {
    const entry = { Source: 'wallet.auth', DetailType: 'user.registered', Detail: JSON.stringify({ event_id: 'x', user_id: 'u1' }) };
    const seen = seenEvents({
      events: [],
      deadLetters: [
        { messageId: 'm', queueUrl: 'q', receivedAt: '', body: JSON.stringify({ event_id: 'x', error: 'ThrottlingException', entry }) },
      ],
    });
    expect(seen).toEqual([
      { type: 'user.registered', source: 'wallet.auth', detail: { event_id: 'x', user_id: 'u1' }, via: 'dead-letter' },
    ]);
  });
});
