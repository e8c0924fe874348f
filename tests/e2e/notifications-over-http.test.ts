import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityEvent, securityNotificationWrites } from '../../lib/notifications/security-notifications.js';
import { sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { type DocumentProxy, expectNoViolations, startDocumentProxy } from './document-proxy.js';
import { useOfflineService } from './offline-server.js';

// Notifications over HTTP through serverless-offline, each call through the validating proxy
// holding docs/openapi.json, and checked against the document by our own conformance check too.
// The unread count under 20 concurrent referrals racing reads is tests/notifications's (every
// answer 200 there, the marks and the counter exact): the count lives in DynamoDB, not in a container.
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
});
