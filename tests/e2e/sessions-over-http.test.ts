import { describe, expect, it } from 'vitest';
import { lastCodeSentTo, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', CompanyID: service.company.company_id, ...headers },
    body: JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method: 'POST', path, ...answer });
  return answer;
}

// serverless-offline drops the body of a GET, so user_id in a GET body (which API Gateway
// passes on) is tested in process, in tests/referrals.
async function get(path: string, headers: Record<string, string>) {
  const response = await fetch(`${service.server.baseUrl}${path}`, { headers: { CompanyID: service.company.company_id, ...headers } });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method: 'GET', path, ...answer });
  return answer;
}

describe('phone login over HTTP through serverless-offline', () => {
  it('registers, sends a code to the outbox, and verifies it into a working session', async () => {
    const registration = sampleRegistration();
    const registered = await post('/wallet/v3/auth/user_register', registration);
    expect(registered.status, service.server.output()).toBe(200);

    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    const sent = await post('/wallet/v3/auth/login_phone', target);
    expect(sent.status, service.server.output()).toBe(200);
    expect(sent.body).toEqual({ success: 1, error: [], data: { message: expect.any(String), expires_in: 300 } });

    const code = lastCodeSentTo(service.server.local, `+1${String(registration.phone_number)}`);
    const wrong = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code === '000000' ? '000001' : '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toEqual([9]);

    const verified = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user_id).toBe(registered.body.data.user_id);
    expect(verified.headers.get('cache-control')).toBe('no-store');

    // The session's token works on the referral list.
    const listed = await get('/wallet/v3/reward_promotion/referral_program', { Authorization: `Token ${verified.body.data.token.token}` });
    expect(listed.status).toBe(200);
    expect(listed.body.data.referral_code).toBe(registered.body.data.referral_code);
  });
});

describe('the referral list over HTTP through serverless-offline', () => {
  it('shows A two referrals newest first and pages them with limit=1', async () => {
    const a = await post('/wallet/v3/auth/user_register', sampleRegistration());
    const auth = { Authorization: `Token ${a.body.data.token.token}` };
    for (const firstName of ['Bea', 'Cal']) {
      const referred = await post(
        '/wallet/v3/auth/user_register',
        sampleRegistration({ first_name: firstName, referral_code: a.body.data.referral_code }),
      );
      expect(referred.status).toBe(200);
    }
    const all = await get('/wallet/v3/reward_promotion/referral_program', auth);
    expect(all.status, service.server.output()).toBe(200);
    expect(all.body.data.referral_count).toBe(2);
    expect(all.body.data.notification.map((n: { notification_body: string }) => n.notification_body)).toEqual([
      expect.stringContaining('Cal'),
      expect.stringContaining('Bea'),
    ]);

    const first = await get('/wallet/v3/reward_promotion/referral_program?limit=1', auth);
    const second = await get(
      `/wallet/v3/reward_promotion/referral_program?limit=1&cursor=${encodeURIComponent(first.body.data.next_cursor)}`,
      auth,
    );
    expect([...first.body.data.notification, ...second.body.data.notification]).toEqual(all.body.data.notification);
    expect(second.body.data.next_cursor).toBeNull();

    const byUserId = await get(`/wallet/v3/reward_promotion/referral_program?user_id=${a.body.data.user_id}`, auth);
    expect(byUserId.body).toEqual(all.body);

    const anonymous = await get('/wallet/v3/reward_promotion/referral_program', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: 0, error: [4], data: { message: 'UNAUTHORIZED' } });
  });
});
