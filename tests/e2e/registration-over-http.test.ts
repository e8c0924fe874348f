import { describe, expect, it } from 'vitest';
import { getUser } from '../../lib/store/user-store.js';
import { staffMember } from '../admin/staff.js';
import { newEmployee, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function call(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(`${service.server.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  const answer = { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  expectDocumented({ method, path, ...answer });
  return answer;
}

const json = { 'content-type': 'application/json' };
const REGISTER = '/wallet/v3/auth/user_register';

describe('registration over HTTP through serverless-offline', () => {
  it('registers the seed-shaped sample, then refuses the same phone with 409', async () => {
    const body = JSON.stringify(sampleRegistration());
    const first = await call('POST', REGISTER, { ...json, CompanyID: service.company.company_id }, body);
    expect(first.status, service.server.output()).toBe(200);
    expect(first.body).toMatchObject({ success: 1, error: [], data: { token: { type: 'Token' } } });
    expect(first.body.data.user_id).toMatch(/^[0-9a-f]{32}$/);
    expect(first.headers.get('cache-control')).toBe('no-store');
    // The deployed functions build their app from the environment alone: production's hash cost
    // (tests elsewhere hand in a cheaper one; tests/secrets/hash-cost.test.ts).
    const stored = await getUser(service.server.local.app.table, service.company.company_id, first.body.data.user_id, true);
    expect(stored?.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(stored?.login_pin_hash).toMatch(/^hmac-scrypt\$1\$4096\$8\$1\$/);
    expect(stored?.transaction_pin_hash).toMatch(/^hmac-scrypt\$1\$4096\$8\$1\$/);

    const again = await call('POST', REGISTER, { ...json, companyid: service.company.company_id }, body);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: 0,
      error: [7],
      data: { message: 'CONFLICT', errors: expect.any(Array) },
    });
  });

  it("registers an employee with an admin's token and a reason (contract 3.14, round 6), and refuses an employee's without the role and a customer's (403, code 5)", async () => {
    const companyId = service.company.company_id;
    const admin = await staffMember(service.server.local, service.company, 'admin');
    const registration = sampleRegistration({ user_type: 1, reason: 'new hire' });
    const registered = await call(
      'POST',
      REGISTER,
      { ...json, CompanyID: companyId, Authorization: admin.session },
      JSON.stringify(registration),
    );
    expect(registered.status, service.server.output()).toBe(200);
    const stored = await getUser(service.server.local.app.table, companyId, registered.body.data.user_id, true);
    expect(stored).toMatchObject({ user_type: 1, cretaed_by: admin.userId });

    const employee = await newEmployee(service.server.local, service.company);
    const notAdmin = await call(
      'POST',
      REGISTER,
      { ...json, CompanyID: companyId, Authorization: employee.authorization },
      JSON.stringify(sampleRegistration({ user_type: 1, reason: 'new hire' })),
    );
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error).toEqual([5]);

    const customer = await call('POST', REGISTER, { ...json, CompanyID: companyId }, JSON.stringify(sampleRegistration()));
    const refused = await call(
      'POST',
      REGISTER,
      { ...json, CompanyID: companyId, Authorization: `Token ${customer.body.data.token.token}` },
      JSON.stringify(sampleRegistration({ user_type: 1 })),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual([5]);
  });

  it.each([
    ['malformed JSON', 'POST', REGISTER, '{"dial_code":', 400, 1],
    ['a body over 16 KiB', 'POST', REGISTER, JSON.stringify({ pad: 'x'.repeat(17_000) }), 413, 13],
    ['an unknown route', 'GET', '/wallet/v3/unknown', undefined, 404, 6],
    ['the right path with the wrong method', 'GET', REGISTER, undefined, 404, 6],
  ])('answers %s in the envelope, never as a 200', async (_, method, path, body, status, code) => {
    const answer = await call(method, path, { ...json, CompanyID: service.company.company_id }, body);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ success: 0, error: [code] });
    expect(answer.text).not.toMatch(/stack|Error:|at \//);
  });

  it('refuses a missing CompanyID with 400, code 2', async () => {
    const answer = await call('POST', REGISTER, json, JSON.stringify(sampleRegistration()));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: 0, error: [2], data: { message: 'BAD_REQUEST' } });
  });
});
