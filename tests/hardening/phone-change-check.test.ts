// The check of pending phone changes and recovered users the chaos run ends with (issue 39,
// tests/harness/phone-change-check.ts), on tables built by hand: each half-done state is named.
import { describe, expect, it } from 'vitest';
import {
  deviceIndexKey,
  pendingChangeKey,
  phoneChangeIndexKey,
  phoneClaimKey,
  sessionKey,
  userDeviceKey,
  userKey,
} from '../../lib/store/keys.js';
import { UserStatus } from '../../lib/store/user-status.js';
import { claimCheck } from '../harness/claim-check.js';
import { phoneChangeCheck } from '../harness/phone-change-check.js';
import type { StoredItem } from '../harness/table-snapshot.js';

const company = 'c1';
const now = 1_800_000_000;
const [oldPhone, newPhone, otherPhone] = ['+12025550101', '+12025550102', '+12025550103'];
const user = (id: string, phone: string, extra: Record<string, unknown> = {}): StoredItem => ({
  ...userKey(company, id),
  user_id: id,
  user_type: 2,
  phone_e164: phone,
  status_id: UserStatus.ACTIVE,
  ...extra,
});
const change = (userId: string, changeId: string, phone: string, extra: Record<string, unknown> = {}): StoredItem => ({
  ...pendingChangeKey(company, userId, 'phone'),
  change_id: changeId,
  user_type: 2,
  phone_e164: phone,
  effective_at: now - 10,
  expires_at: now + 3600,
  ...extra,
});
const index = (phone: string, userId: string, changeId: string, extra: Record<string, unknown> = {}): StoredItem => ({
  ...phoneChangeIndexKey(company, phone, 2),
  user_id: userId,
  change_id: changeId,
  effective_at: now - 10,
  expires_at: now + 3600,
  ...extra,
});
const replace = (items: StoredItem[], key: { pk: string; sk: string }, extra: Record<string, unknown>) =>
  items.map((item) => (item.pk === key.pk && item.sk === key.sk ? { ...item, ...extra } : item));
const without = (items: StoredItem[], key: { pk: string; sk: string }) =>
  items.filter((item) => !(item.pk === key.pk && item.sk === key.sk));

describe('the pending phone change check', () => {
  // u1 waits on the new number; u2's change was cancelled (its index item gone).
  const sound = [
    user('u1', oldPhone),
    change('u1', 'ch1', newPhone),
    index(newPhone, 'u1', 'ch1'),
    user('u2', otherPhone),
    change('u2', 'ch2', '+12025550104', { ended_reason: 'cancelled' }),
  ];

  it('finds nothing in a sound table, nor in a disabled user’s sleeping change or an expired leftover', () => {
    expect(phoneChangeCheck(sound, company, [], now)).toEqual({ live: 1, recovered: 0, problems: [] });
    const disabled = replace(sound, userKey(company, 'u1'), { status_id: UserStatus.DISABLED });
    expect(phoneChangeCheck(disabled, company, [], now).problems).toEqual([]);
    // Past its 7 days the TTL deletes both, late: neither counts.
    const expired = [
      ...sound,
      change('u3', 'ch3', '+12025550105', { expires_at: now }),
      index('+12025550105', 'u9', 'ch9', { expires_at: now }),
    ];
    expect(phoneChangeCheck(expired, company, [], now).problems).toEqual([]);
  });

  it('names a live change and index item whose user is not active: deleted, reclaimed, or not stored', () => {
    const deleted = replace(sound, userKey(company, 'u1'), { status_id: UserStatus.DELETION_REQUESTED });
    expect(phoneChangeCheck(deleted, company, [], now).problems).toEqual([
      `user u1's live pending change ch1 to ${newPhone} outlived its user, of status 4`,
      `the index item of ${newPhone} (change ch1 of user u1) outlived its user, of status 4`,
    ]);
    const gone = without(sound, userKey(company, 'u1'));
    expect(phoneChangeCheck(gone, company, [], now).problems).toEqual([
      `user u1's live pending change ch1 to ${newPhone} has no user stored`,
      `the index item of ${newPhone} (change ch1 of user u1) names a user not stored`,
    ]);
  });

  it('names an index item whose user’s pending change is another, ended, or to another number', () => {
    const replaced = replace(sound, pendingChangeKey(company, 'u1', 'phone'), { change_id: 'ch9' });
    expect(phoneChangeCheck(replaced, company, [], now).problems).toEqual([
      `user u1's live pending change ch9 to ${newPhone} has no index item of its own (the number's names u1's ch1)`,
      `the index item of ${newPhone} (change ch1 of user u1) is live though the user's pending change is ch9`,
    ]);
    const cancelled = replace(sound, pendingChangeKey(company, 'u1', 'phone'), { ended_reason: 'cancelled' });
    expect(phoneChangeCheck(cancelled, company, [], now).problems).toEqual([
      `the index item of ${newPhone} (change ch1 of user u1) is live though its change ended (cancelled)`,
    ]);
    const completed = without(sound, pendingChangeKey(company, 'u1', 'phone'));
    expect(phoneChangeCheck(completed, company, [], now).problems).toEqual([
      `the index item of ${newPhone} (change ch1 of user u1) is live though the user has no pending change`,
    ]);
  });

  it('names a live change with no index item (login_phone cannot complete it), or whose user is on its number already', () => {
    expect(phoneChangeCheck(without(sound, phoneChangeIndexKey(company, newPhone, 2)), company, [], now).problems).toEqual([
      `user u1's live pending change ch1 to ${newPhone} has no index item of its own (none)`,
    ]);
    const moved = replace(sound, userKey(company, 'u1'), { phone_e164: newPhone });
    expect(phoneChangeCheck(moved, company, [], now).problems).toEqual([
      `user u1's live pending change ch1 to ${newPhone} is live though the user is on that number`,
    ]);
  });
});

describe('the recovered user check', () => {
  const movedAt = now - 100;
  // u1 moved to the new number by a recovery: no device, its older sessions ended, one OTP login since.
  const sound = [
    user('u1', newPhone, { device_count: 0, phone_changed_at: movedAt }),
    {
      ...sessionKey(company, 'u1', 'pin'),
      began: 'pin',
      device_key: 'd1',
      created_at: movedAt - 5,
      expires_at: now + 60,
      ended_reason: 'recovered',
    },
    { ...sessionKey(company, 'u1', 'old'), began: 'otp', created_at: movedAt - 50, expires_at: now + 60, ended_reason: 'recovered' },
    { ...sessionKey(company, 'u1', 'new'), began: 'otp', created_at: movedAt, expires_at: now + 60 },
  ];
  const recoveries = [{ userId: 'u1', toE164: newPhone }];

  it('finds nothing once every device is gone and every older session ended; a recovery not completed is not checked', () => {
    expect(phoneChangeCheck(sound, company, recoveries, now)).toEqual({ live: 0, recovered: 1, problems: [] });
    expect(phoneChangeCheck(sound, company, [{ userId: 'u1', toE164: otherPhone }], now).recovered).toBe(0);
  });

  it('names a device left: counted, listed, or indexed', () => {
    const left = [
      ...replace(sound, userKey(company, 'u1'), { device_count: 1 }),
      { ...userDeviceKey(company, 'u1', 'd1'), label: 'phone' },
      { ...deviceIndexKey(company, 'd1'), user_id: 'u1' },
    ];
    expect(phoneChangeCheck(left, company, recoveries, now).problems).toEqual([
      `user u1, moved to ${newPhone} by a recovery, counts 1 device(s)`,
      `user u1, moved to ${newPhone} by a recovery, still lists 1 device(s)`,
      `user u1, moved to ${newPhone} by a recovery, is still named by 1 device index item(s)`,
    ]);
  });

  it('names a live session begun on the device (a PIN login that won against the move) or before the move', () => {
    const live = sound.map(({ ended_reason: _ended, ...item }) => item as StoredItem);
    expect(phoneChangeCheck(live, company, recoveries, now).problems).toEqual([
      `user u1, moved to ${newPhone} by a recovery, has a live session begun on a device (SESSION#pin)`,
      `user u1, moved to ${newPhone} by a recovery, has a live session begun before the move (SESSION#old)`,
    ]);
  });

  it('leaves to the claim check a phone claim held by a user whose record has another number (a move half-done)', () => {
    const half = [
      user('u1', oldPhone),
      { ...phoneClaimKey(company, newPhone, 2), user_id: 'u1' },
      { ...phoneClaimKey(company, oldPhone, 2), user_id: 'u1' },
    ];
    expect(claimCheck(half, company).problems).toEqual([`phone ${newPhone} (type 2) is claimed by user u1, whose record has ${oldPhone}`]);
  });
});
