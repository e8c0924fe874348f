import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { lastCodeSentTo, newCompany, sampleRegistration } from '../helpers.js';
import { startOffline, type OfflineServer } from './offline-server.js';

let server: OfflineServer;
let company: Company;

beforeAll(async () => {
  [server, company] = await Promise.all([startOffline(), newCompany()]);
}, 180_000);

afterAll(() => server?.stop());

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', CompanyID: company.company_id, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('phone login over HTTP through serverless-offline', () => {
  it('registers, sends a code to the outbox, and verifies it into a working session', async () => {
    const registration = sampleRegistration();
    const registered = await post('/wallet/v3/auth/user_register', registration);
    expect(registered.status, server.output()).toBe(200);

    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    const sent = await post('/wallet/v3/auth/login_phone', target);
    expect(sent.status, server.output()).toBe(200);
    expect(sent.body).toEqual({ success: 1, error: [], data: { message: expect.any(String), expires_in: 300 } });

    const code = lastCodeSentTo(`+1${String(registration.phone_number)}`);
    const wrong = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code === '000000' ? '000001' : '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toEqual([9]);

    const verified = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user_id).toBe(registered.body.data.user_id);
    expect(verified.headers.get('cache-control')).toBe('no-store');

    // The session token works where a token is needed: a top-up code for the user's own phone.
    const topUp = await post('/wallet/v3/auth/login_phone', { ...target, otp_type: 3 }, {
      Authorization: `Token ${verified.body.data.token.token}`,
    });
    expect(topUp.status).toBe(429); // the phone's 60-second send interval is still running
    expect(Number(topUp.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
