// The check `npm run chaos` ends with for the events (scripts/local/event-check.ts), on tables and
// events built by hand: a sound pair passes, and each broken rule, either way, is named.
import { describe, expect, it } from 'vitest';
import { sessionKey, userDeviceKey, userKey } from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/users/user-status.js';
import { eventCheck, type SeenEvent, seenEvents } from '../../scripts/local/event-check.js';
import type { StoredItem } from '../../scripts/local/table-snapshot.js';

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
      received: 10,
      distinct: 9,
      deadLettered: 1,
      proven: { users: 2, sessionsEnded: 1, devices: 1, phoneChanges: 1, statuses: 1, profileUpdates: 1 },
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
