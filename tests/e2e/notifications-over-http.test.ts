import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityEvent, securityNotificationWrites } from '../../lib/notifications/security-notifications.js';
import { NOTIFICATION_PREFIX, userKey } from '../../lib/store/keys.js';
import { sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { type DocumentProxy, expectNoViolations, startDocumentProxy } from './document-proxy.js';
import { useOfflineService } from './offline-server.js';

// Notifications over HTTP through serverless-offline, each call through the validating proxy
// holding docs/openapi.json, and checked against the document by our own conformance check too.
const service = useOfflineService();
let proxy: DocumentProxy;

beforeAll(async () => {
  proxy = await startDocumentProxy(service.server.baseUrl);
}, 60_000);
afterAll(() => proxy?.stop());

async function call(method: 'GET' | 'POST', path: string, authorization?: string, body?: unknown, outside?: 'outside the document') {
  const response = await fetch(`${proxy.baseUrl}${path}`, {
    method,
    headers: {
      CompanyID: service.company.company_id,
      ...(authorization ? { Authorization: authorization } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method, path, ...answer });
  if (!outside) expectNoViolations(response, `${method} ${path}`);
  return answer;
}

async function register(overrides: Record<string, unknown> = {}) {
  const answer = await call('POST', '/wallet/v3/auth/user_register', undefined, sampleRegistration(overrides));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return {
    userId: answer.body.data.user_id as string,
    referralCode: answer.body.data.referral_code as string,
    authorization: `Token ${answer.body.data.token.token}`,
  };
}

/** The user's notifications as stored: how many, and how many are unread, counted item by item. */
async function storedUnread(userId: string): Promise<{ items: number; unread: number }> {
  const { table } = service.server.local.app;
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': userKey(service.company.company_id, userId).pk, ':prefix': NOTIFICATION_PREFIX },
      ConsistentRead: true,
    }),
  );
  return { items: Items.length, unread: Items.filter((item) => item.is_read === 0).length };
}

describe('notifications over HTTP through serverless-offline', () => {
  it('lists referral and security notifications with the unread count, and marks them read by id and all', async () => {
    const owner = await register();
    const { table } = service.server.local.app;
    const nowMs = Date.now() - 10_000;
    for (const [offset, event] of [SecurityEvent.NEW_DEVICE, SecurityEvent.PIN_CHANGED].entries()) {
      const writes = securityNotificationWrites(table, service.company.company_id, owner.userId, { event, nowMs: nowMs + offset * 1000 });
      await table.client.send(new TransactWriteCommand({ TransactItems: writes }));
    }
    await register({ first_name: 'Bea', referral_code: owner.referralCode });

    const listed = await call('GET', '/wallet/v3/notifications', owner.authorization);
    expect(listed.status, service.server.output()).toBe(200);
    expect(listed.body.data.unread_count).toBe(3);
    expect(listed.body.data.notification.map((n: any) => [n.notification_type, n.notification_event_type, n.is_read])).toEqual([
      [1, 1, 0],
      [2, 3, 0],
      [2, 2, 0],
    ]);
    const first = await call('GET', '/wallet/v3/notifications?limit=1&unread=1', owner.authorization);
    expect(first.body.data.notification).toHaveLength(1);
    const next = await call(
      'GET',
      `/wallet/v3/notifications?limit=1&unread=1&cursor=${encodeURIComponent(first.body.data.next_cursor)}`,
      owner.authorization,
    );
    expect(next.body.data.notification[0].id).toBe(listed.body.data.notification[1].id);

    const byId = await call('POST', '/wallet/v3/notifications/read', owner.authorization, { ids: [listed.body.data.notification[0].id] });
    expect(byId.body).toEqual({ success: 1, error: [], data: { message: expect.any(String), marked: 1, unread_count: 2 } });
    const referrals = await call('GET', '/wallet/v3/reward_promotion/referral_program', owner.authorization);
    expect(referrals.body.data.notification.map((n: any) => [n.notification_type, n.is_read])).toEqual([[1, 1]]);
    const all = await call('POST', '/wallet/v3/notifications/read', owner.authorization, { all: 1 });
    expect(all.body.data).toMatchObject({ marked: 2, unread_count: 0 });
    expect((await call('GET', '/wallet/v3/notifications?unread=1', owner.authorization)).body.data).toEqual({
      notification: [],
      unread_count: 0,
      next_cursor: null,
    });
    const refused = await call('POST', '/wallet/v3/notifications/read', owner.authorization, { ids: [] }, 'outside the document');
    expect([refused.status, refused.body.error]).toEqual([400, [1]]);
  });

  it('keeps the unread count exact under 20 concurrent referrals racing reads', async () => {
    const referrer = await register();
    // Four security notices before the race, each marked by id twice in it: a second marking of a
    // read one must change nothing, whatever the order.
    const { table } = service.server.local.app;
    const noticeIds: string[] = [];
    for (const offset of [1, 2, 3, 4]) {
      const writes = securityNotificationWrites(table, service.company.company_id, referrer.userId, {
        event: SecurityEvent.NEW_DEVICE,
        nowMs: Date.now() - offset * 1000,
      });
      noticeIds.push((writes[0]!.Put!.Item as { id: string }).id);
      await table.client.send(new TransactWriteCommand({ TransactItems: writes }));
    }
    // serverless-offline starts an instance per concurrent call: warm as many as the race below uses
    // (registrations refused before any hashing, by an unknown referral code), so it is not 30 cold starts.
    const warming = await Promise.all([
      ...Array.from({ length: 20 }, () =>
        call('POST', '/wallet/v3/auth/user_register', undefined, sampleRegistration({ referral_code: 'NOSUCHCODE' })),
      ),
      ...Array.from({ length: 5 }, () => call('GET', '/wallet/v3/notifications', referrer.authorization)),
      ...Array.from({ length: 10 }, () => call('POST', '/wallet/v3/notifications/read', referrer.authorization, { ids: [noticeIds[0]] })),
    ]);
    expect(warming.map((answer) => answer.status)).toEqual([...Array(20).fill(400), ...Array(15).fill(200)]);
    expect(warming.slice(25).reduce((sum, answer) => sum + answer.body.data.marked, 0)).toBe(1);
    const referrals = Array.from({ length: 20 }, () =>
      call('POST', '/wallet/v3/auth/user_register', undefined, sampleRegistration({ referral_code: referrer.referralCode })),
    );
    const reads = [
      ...[...noticeIds.slice(1), ...noticeIds.slice(1)].map((id) =>
        call('POST', '/wallet/v3/notifications/read', referrer.authorization, { ids: [id] }),
      ),
      ...Array.from({ length: 4 }, () => call('POST', '/wallet/v3/notifications/read', referrer.authorization, { all: 1 })),
      ...Array.from({ length: 5 }, () => call('GET', '/wallet/v3/notifications?unread=1&limit=100', referrer.authorization)),
    ];
    const answers = await Promise.all([...referrals, ...reads]);
    // Twenty registrations hash at once, beside the other test files: a loaded machine may answer some
    // calls 503 (16) at their deadline, whose writes may or may not have landed. What is stored is
    // what the count must match; the calls answered 200 marked no more than was marked.
    for (const answer of answers) {
      expect([200, 503], JSON.stringify(answer.body)).toContain(answer.status);
      if (answer.status === 503) expect(answer.body.error).toEqual([16]);
    }
    const succeeded = (from: number, to: number) => answers.slice(from, to).filter((answer) => answer.status === 200);
    expect([succeeded(0, 20).length, succeeded(20, 35).length].every((count) => count > 0)).toBe(true);
    const marked = 1 + succeeded(20, 35).reduce((sum, answer) => sum + (answer.body.data.marked ?? 0), 0);
    const stored = await storedUnread(referrer.userId);
    expect(stored.items).toBeGreaterThanOrEqual(succeeded(0, 20).length + 4);
    if (answers.every((answer) => answer.status === 200)) expect(marked).toBe(stored.items - stored.unread);
    else expect(marked).toBeLessThanOrEqual(stored.items - stored.unread);
    const listed = await call('GET', '/wallet/v3/notifications?limit=100', referrer.authorization);
    expect(listed.body.data.unread_count).toBe(stored.unread);
    expect(listed.body.data.notification.filter((n: any) => n.is_read === 0)).toHaveLength(stored.unread);
    const rest = await call('POST', '/wallet/v3/notifications/read', referrer.authorization, { all: 1 });
    expect(rest.body.data).toMatchObject({ marked: stored.unread, unread_count: 0 });
  }, 120_000);
});
