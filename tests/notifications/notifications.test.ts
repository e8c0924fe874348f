import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { newId } from '../../lib/ids.js';
import { NotificationType } from '../../lib/notifications/notification-record.js';
import { referredSignUpNotification } from '../../lib/notifications/referral-notifications.js';
import { SecurityEvent, securityNotificationWrites } from '../../lib/notifications/security-notifications.js';
import { NOTIFICATION_PREFIX, UNREAD_COUNT_PREFIX, userKey } from '../../lib/store/keys.js';
import { notificationWrites } from '../../lib/store/notification-store.js';
import { MINIMUM_ROUND_TRIPS } from '../../scripts/bench/minimum-round-trips.js';
import { RoundTripCounter } from '../../scripts/bench/round-trips.js';
import { type Account, type Answer, expectFailure, invoke, newCompany, SEED_NOTIFICATION_FIELDS, signUp, testService } from '../helpers.js';

const service = testService();
const { table } = service.app;
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const headers = (account: Account) => ({ CompanyID: company.company_id, Authorization: account.authorization });

function list(account: Account, query: Record<string, string> = {}): Promise<Answer> {
  return invoke(service.handlers.notifications, { method: 'GET', path: '/wallet/v3/notifications', headers: headers(account), query });
}

function markRead(account: Account, body: unknown): Promise<Answer> {
  return invoke(service.handlers.notificationsRead, { path: '/wallet/v3/notifications/read', headers: headers(account), body });
}

function referralList(account: Account, query: Record<string, string> = {}): Promise<Answer> {
  return invoke(service.handlers.referralProgram, {
    method: 'GET',
    path: '/wallet/v3/reward_promotion/referral_program',
    headers: headers(account),
    query,
  });
}

const SECURITY_EVENTS = Object.values(SecurityEvent);

/**
 * Stores notifications for a user directly, one a second from `startMs`, oldest first: 'r' a
 * referral, 's' a security notice (events 2-5 in turn). Answers their ids, oldest first.
 */
async function storeNotifications(userId: string, kinds: string, startMs = Date.now() - kinds.length * 1000 - 60_000): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < kinds.length; start += 10) {
    const batch = [...kinds.slice(start, start + 10)].map((kind, offset) => {
      const index = start + offset;
      const nowMs = startMs + index * 1000;
      const items =
        kind === 'r'
          ? (() => {
              const notification = referredSignUpNotification(userId, newId(), `Friend${index}`, nowMs);
              return notificationWrites(table, company.company_id, notification, nowMs);
            })()
          : securityNotificationWrites(table, company.company_id, userId, { event: SECURITY_EVENTS[index % 4]!, nowMs });
      const put = items[0]!.Put!.Item as { id: string };
      ids[index] = put.id;
      return table.client.send(new TransactWriteCommand({ TransactItems: items }));
    });
    await Promise.all(batch);
  }
  return ids;
}

/** The user's notifications as stored, how many of them are unread (counted item by item), and the count's shards. */
async function stored(userId: string): Promise<{ items: Record<string, any>[]; unread: number; counter: number; shards: number }> {
  const partition: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userKey(company.company_id, userId).pk },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    partition.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const items = partition.filter((item) => item.sk.startsWith(NOTIFICATION_PREFIX));
  const shards = partition.filter((item) => item.sk.startsWith(UNREAD_COUNT_PREFIX));
  return {
    items,
    unread: items.filter((item) => item.is_read === 0).length,
    counter: shards.reduce((sum, shard) => sum + shard.unread, 0),
    shards: shards.length,
  };
}

async function pageThrough(account: Account, query: Record<string, string>): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const answer = await list(account, { ...query, ...(cursor ? { cursor } : {}) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    sizes.push(answer.body.data.notification.length);
    ids.push(...answer.body.data.notification.map((n: { id: string }) => n.id));
    cursor = answer.body.data.next_cursor ?? undefined;
  } while (cursor);
  return { ids, sizes };
}

describe('the notification list', () => {
  it('lists referral and security notifications newest first, with exactly the seed fields and the unread count', async () => {
    const referrer = await signUp(service, company);
    await storeNotifications(referrer.userId, 'ssss');
    await signUp(service, company, { first_name: 'Bea', referral_code: referrer.referralCode });

    const answer = await list(referrer);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { data } = answer.body;
    expect(data.unread_count).toBe(5);
    expect(data.next_cursor).toBeNull();
    expect(data.notification.map((n: any) => [n.notification_type, n.notification_event_type])).toEqual([
      [1, 1],
      [2, 5],
      [2, 4],
      [2, 3],
      [2, 2],
    ]);
    expect(data.notification[0].notification_body).toContain('Bea');
    for (const notification of data.notification) {
      // The seed's section 2.4, written out: not the schema under test.
      expect(Object.keys(notification).sort()).toEqual(SEED_NOTIFICATION_FIELDS);
      expect(notification).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), user_id: referrer.userId, is_read: 0 });
      // A new id carries its creation time: 12 hex digits of milliseconds, within the created second.
      expect(Math.floor(Number.parseInt(notification.id.slice(0, 12), 16) / 1000)).toBe(notification.created_date);
    }
  });

  it('answers an empty list and a zero count for a user with no notifications', async () => {
    const loner = await signUp(service, company);
    expect((await list(loner)).body.data).toEqual({ notification: [], unread_count: 0, next_cursor: null });
  });

  it('pages through 45 with limit 20: three pages, nothing repeated, nothing missed', async () => {
    const owner = await signUp(service, company);
    const ids = await storeNotifications(owner.userId, `${'rs'.repeat(22)}r`);
    const { ids: listed, sizes } = await pageThrough(owner, { limit: '20' });
    expect(sizes).toEqual([20, 20, 5]);
    expect(listed).toEqual([...ids].reverse());
  });

  it('with unread=1 lists only unread ones, pages full though read ones lie between, and the count stays the whole count', async () => {
    const owner = await signUp(service, company);
    const ids = await storeNotifications(owner.userId, 'rs'.repeat(20));
    // Every one but each fourth is read: 10 unread, spread over the 40.
    const read = ids.filter((_, index) => index % 4 !== 0);
    expect((await markRead(owner, { ids: read })).body.data).toMatchObject({ marked: 30, unread_count: 10 });
    const { ids: listed, sizes } = await pageThrough(owner, { unread: '1', limit: '3' });
    expect(sizes).toEqual([3, 3, 3, 1]);
    expect(listed).toEqual(ids.filter((_, index) => index % 4 === 0).reverse());
    const first = await list(owner, { unread: '1', limit: '3' });
    expect(first.body.data.unread_count).toBe(10);
    expect((await list(owner, { unread: '0' })).body.data.notification).toHaveLength(20);
  });

  it('refuses a cursor of another list (the unread one, the referral one) with 400, code 1 on cursor', async () => {
    const owner = await signUp(service, company);
    await storeNotifications(owner.userId, 'rrr');
    const unreadCursor: string = (await list(owner, { unread: '1', limit: '1' })).body.data.next_cursor;
    const referralCursor: string = (await referralList(owner, { limit: '1' })).body.data.next_cursor;
    for (const cursor of [unreadCursor, referralCursor]) {
      const answer = await list(owner, { limit: '1', cursor });
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors[0].field).toBe('cursor');
    }
    expect((await list(owner, { unread: '1', limit: '1', cursor: unreadCursor })).status).toBe(200);
  });

  it.each<Record<string, string>>([{ unread: '2' }, { unread: 'yes' }, { limit: '0' }, { limit: '101' }])(
    'refuses %j with 400, code 1',
    async (query) => {
      const owner = await signUp(service, company);
      const answer = await list(owner, query);
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors[0].field).toBe(Object.keys(query)[0]);
    },
  );

  it('needs a token: 401, code 4', async () => {
    const answer = await invoke(service.handlers.notifications, {
      method: 'GET',
      path: '/wallet/v3/notifications',
      headers: { CompanyID: company.company_id },
    });
    expectFailure(answer, 401, 4);
  });
});

describe('marking notifications read', () => {
  it('marks by id: is_read 1 and updated_date now; a repeat, a read one, another user’s or an unknown id change nothing', async () => {
    const owner = await signUp(service, company);
    const other = await signUp(service, company);
    const ids = (await storeNotifications(owner.userId, 'rsrs')) as [string, string, string, string];
    const [otherId] = (await storeNotifications(other.userId, 's')) as [string];
    // Stopped, so "now" is one second however slow the machine.
    const now = Math.floor(Date.now() / 1000) + 90;
    service.clock.freeze(now);
    try {
      const first = await markRead(owner, { ids: [ids[0], ids[1], ids[1].toUpperCase()] });
      expect(first.body).toEqual({ success: 1, error: [], data: { message: expect.any(String), marked: 2, unread_count: 2 } });
      const again = await markRead(owner, { ids: [ids[0], ids[1], otherId, newId()] });
      expect(again.body.data).toMatchObject({ marked: 0, unread_count: 2 });
      const byId = new Map((await list(owner)).body.data.notification.map((n: any) => [n.id, n]));
      expect(byId.get(ids[0])).toMatchObject({ is_read: 1, updated_date: now });
      expect(byId.get(ids[1])).toMatchObject({ is_read: 1, updated_date: now });
      expect(byId.get(ids[2])).toMatchObject({ is_read: 0 });
      expect((byId.get(ids[2]) as any).updated_date).toBe((byId.get(ids[2]) as any).created_date);
      // The other user's notification is untouched, and so is their count.
      expect((await list(other)).body.data).toMatchObject({ unread_count: 1, notification: [expect.objectContaining({ is_read: 0 })] });
    } finally {
      service.clock.reset();
    }
    const table = await stored(owner.userId);
    expect([table.unread, table.counter]).toEqual([2, 2]);
  });

  it('marks a notification whose id is an older, random one (no time in it) by a walk of the unread ones', async () => {
    const owner = await signUp(service, company);
    const createdAtMs = Date.now() - 5000;
    const legacyId = `0000${newId().slice(4)}`;
    const notification = { ...referredSignUpNotification(owner.userId, newId(), 'Old', createdAtMs), id: legacyId };
    await table.client.send(
      new TransactWriteCommand({ TransactItems: notificationWrites(table, company.company_id, notification, createdAtMs) }),
    );
    const [timed] = await storeNotifications(owner.userId, 's');
    expect((await markRead(owner, { ids: [legacyId, timed] })).body.data).toMatchObject({ marked: 2, unread_count: 0 });
    expect((await list(owner)).body.data.notification.map((n: any) => n.is_read)).toEqual([1, 1]);
  });

  it('marks all, or all created at or before a time, walking more than one transaction can hold', async () => {
    const owner = await signUp(service, company);
    const startMs = Date.now() - 600_000;
    const ids = await storeNotifications(owner.userId, `${'rs'.repeat(60)}rrrrr`, startMs);
    // `before` names the second of the 120th (index 119): it and every older one are marked.
    const before = Math.floor((startMs + 119 * 1000) / 1000);
    const some = await markRead(owner, { all: 1, before });
    expect(some.body.data).toMatchObject({ marked: 120, unread_count: 5 });
    const unread = (await list(owner, { unread: '1' })).body.data.notification.map((n: any) => n.id);
    expect(unread).toEqual(ids.slice(120).reverse());
    expect((await markRead(owner, { all: 1 })).body.data).toMatchObject({ marked: 5, unread_count: 0 });
    expect((await markRead(owner, { all: 1 })).body.data).toMatchObject({ marked: 0, unread_count: 0 });
    const table = await stored(owner.userId);
    expect([table.items.length, table.unread, table.counter]).toEqual([125, 0, 0]);
  }, 60_000);

  it.each([
    [{}, 'ids'],
    [{ ids: [] }, 'ids'],
    [{ ids: Array.from({ length: 101 }, () => newId()) }, 'ids'],
    [{ ids: ['not-an-id'] }, 'ids.0'],
    [{ ids: [newId()], all: 1 }, 'ids'],
    [{ ids: [newId()], before: 1 }, 'before'],
    [{ all: 2 }, 'all'],
    [{ all: 1, before: -1 }, 'before'],
    [{ all: 1, before: 1.5 }, 'before'],
    [{ all: 1, before: '1795000000' }, 'before'],
  ])('refuses %j with 400, code 1 on %s', async (body, field) => {
    const owner = await signUp(service, company);
    const answer = await markRead(owner, body);
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('needs a token: 401, code 4', async () => {
    const answer = await invoke(service.handlers.notificationsRead, {
      path: '/wallet/v3/notifications/read',
      headers: { CompanyID: company.company_id },
      body: { all: 1 },
    });
    expectFailure(answer, 401, 4);
  });
});

describe('the unread count under concurrency', () => {
  it('stays exact under 20 concurrent referrals racing reads by id and by all', async () => {
    const referrer = await signUp(service, company);
    const early = await storeNotifications(referrer.userId, 'ssssssss');
    const referrals = Array.from({ length: 20 }, () => signUp(service, company, { referral_code: referrer.referralCode }));
    const reads = [
      ...early.map((id) => markRead(referrer, { ids: [id] })),
      ...early.map((id) => markRead(referrer, { ids: [id] })),
      ...Array.from({ length: 6 }, () => markRead(referrer, { all: 1 })),
      ...Array.from({ length: 6 }, () => list(referrer, { unread: '1' })),
    ];
    const answers = await Promise.all([...referrals, ...reads]);
    const readAnswers = answers.slice(20) as Answer[];
    for (const answer of readAnswers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const marked = readAnswers.reduce((sum, answer) => sum + (answer.body.data.marked ?? 0), 0);
    const table = await stored(referrer.userId);
    expect(table.items).toHaveLength(28);
    // Every notification was marked at most once, and the counter is the unread ones, exactly.
    expect(marked).toBe(28 - table.unread);
    expect(table.counter).toBe(table.unread);
    // The count is spread over shards, so the sign-ups do not all meet on one item.
    expect(table.shards).toBeGreaterThan(1);
    expect((await list(referrer)).body.data.unread_count).toBe(table.unread);
    expect((await markRead(referrer, { all: 1 })).body.data).toMatchObject({ marked: table.unread, unread_count: 0 });
    expect((await stored(referrer.userId)).counter).toBe(0);
  }, 120_000);
});

describe('the referral list beside security notices', () => {
  it('lists only referral notifications, with their is_read, paging as before: 45 with limit 20 in pages of 20, 20 and 5', async () => {
    const referrer = await signUp(service, company);
    // Security notices before, between and after the referrals.
    const kinds = `sss${'rss'.repeat(44)}rsss`;
    const ids = await storeNotifications(referrer.userId, kinds);
    const referralIds = ids.filter((_, index) => kinds[index] === 'r');
    expect(referralIds).toHaveLength(45);
    await markRead(referrer, { ids: [referralIds[44], ids[4]] });
    const seen: any[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const answer = await referralList(referrer, { limit: '20', ...(cursor ? { cursor } : {}) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      sizes.push(answer.body.data.notification.length);
      seen.push(...answer.body.data.notification);
      cursor = answer.body.data.next_cursor ?? undefined;
    } while (cursor);
    expect(sizes).toEqual([20, 20, 5]);
    expect(seen.map((n) => n.id)).toEqual([...referralIds].reverse());
    expect(seen.every((n) => n.notification_type === NotificationType.REFERRAL)).toBe(true);
    expect(seen.map((n) => n.is_read)).toEqual([1, ...Array(44).fill(0)]);
    // A page of exactly what is left ends the list.
    const lastTwenty = await referralList(referrer, { limit: '45' });
    expect(lastTwenty.body.data.next_cursor).toBeNull();
  }, 60_000);
});

describe('DynamoDB requests per call (scripts/bench/minimum-round-trips.ts)', () => {
  it('makes exactly the documented minimum for each outcome of both endpoints', async () => {
    const owner = await signUp(service, company);
    const ids = await storeNotifications(owner.userId, 'rrs');
    // The company is in the warm cache, as the table assumes.
    await list(owner);
    const counter = new RoundTripCounter();
    counter.attach(table.client);
    const measured: Record<string, Record<string, { requests: number; sequential: number }>> = { notifications: {}, notificationsRead: {} };
    const measure = async (endpoint: 'notifications' | 'notificationsRead', outcome: string, call: () => Promise<Answer>) => {
      counter.take();
      const answer = await call();
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { requests, sequential } = counter.take();
      measured[endpoint]![outcome] = { requests, sequential };
      return answer;
    };
    const first = await measure('notifications', 'own list, first page', () => list(owner, { limit: '1' }));
    await measure('notifications', 'own list, next page', () => list(owner, { limit: '1', cursor: first.body.data.next_cursor }));
    await measure('notificationsRead', 'by id', () => markRead(owner, { ids: [ids[0]] }));
    await measure('notificationsRead', 'by id, already read', () => markRead(owner, { ids: [ids[0]] }));
    await markRead(owner, { ids: [ids[1]] });
    await measure('notificationsRead', 'all (one unread)', () => markRead(owner, { all: 1 }));
    await measure('notificationsRead', 'all, none unread', () => markRead(owner, { all: 1 }));
    const documented = Object.fromEntries(
      (['notifications', 'notificationsRead'] as const).map((endpoint) => [
        endpoint,
        Object.fromEntries(
          Object.entries(MINIMUM_ROUND_TRIPS[endpoint]!).map(([outcome, { requests, sequential }]) => [outcome, { requests, sequential }]),
        ),
      ]),
    );
    expect(measured).toEqual(documented);
  });
});
