// Held changes of the second reading of API contract 3.15 over HTTP through serverless-offline, each
// answer checked against the API document: an export from an SMS-strength session waits, and
// staff who strip the owner's defences end the SMS-strength changes and freeze new ones.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { userKey } from '../../lib/store/keys.js';
import { employeeWithDevice, staffMember } from '../admin/staff.js';
import { otpLogin } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { lastCodeSentTo, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function call(method: 'GET' | 'POST', path: string, body?: unknown, authorization?: string) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method,
    headers: {
      CompanyID: service.company.company_id,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(authorization ? { Authorization: authorization } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  expectDocumented({ method, path, ...answer });
  return answer;
}

/** A customer registered over HTTP with a device bound (settled: bound at registration); the registration's session is SMS-strength. */
async function customer() {
  const registration = sampleRegistration({ device_public_key: newDeviceKeyPair().publicKey, device_id: 'phone-1' });
  const registered = await call('POST', '/wallet/v3/auth/user_register', registration);
  expect(registered.status, service.server.output()).toBe(200);
  return {
    registration,
    userId: registered.body.data.user_id as string,
    deviceKey: registered.body.data.device_key as string,
    token: `Token ${registered.body.data.token.token}`,
  };
}

/** An OTP login to the customer's number over HTTP: what a SIM swapper can do. */
async function otpSession(registration: Record<string, unknown>): Promise<string> {
  const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: Number(registration.user_type ?? 2), otp_type: 1 };
  expect((await call('POST', '/wallet/v3/auth/login_phone', target)).status).toBe(200);
  const code = lastCodeSentTo(service.server.local, `+1${String(registration.phone_number)}`);
  const verified = await call('POST', '/wallet/v3/auth/verify_otp', { ...target, otp: code });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return `Token ${verified.body.data.token.token}`;
}

describe('held changes of the second reading over HTTP', () => {
  it('holds the export of an SMS-strength session and answers the same change when asked again', async () => {
    const { token } = await customer();
    const held = await call('GET', '/wallet/v3/user/export', undefined, token);
    expect(held.status, service.server.output()).toBe(200);
    expect(held.body.data).toEqual({
      message: 'Export pending',
      pending: 1,
      change_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      effective_at: expect.any(Number),
    });
    const again = await call('GET', '/wallet/v3/user/export', undefined, token);
    expect(again.body.data).toEqual(held.body.data);
  });

  it('ends the held device removal when support ends the sessions, and refuses a new held change (403 code 5, needs strong)', async () => {
    const owner = await customer();
    const held = await call('POST', '/wallet/v3/auth/devices/remove', { device_key: owner.deviceKey }, owner.token);
    expect(held.body.data, JSON.stringify(held.body)).toMatchObject({ pending: 1 });

    const support = await staffMember(service.server.local, service.company, 'support');
    const ended = await call(
      'POST',
      '/wallet/v3/admin/users/sessions/end',
      { user_id: owner.userId, reason: 'ticket 49' },
      support.session,
    );
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);

    const swapper = await otpSession(owner.registration);
    const profile = await call('GET', '/wallet/v3/user/profile', undefined, swapper);
    expect(profile.body.data.pending_changes).toEqual([]);
    const refused = await call('POST', '/wallet/v3/auth/devices/remove', { device_key: owner.deviceKey }, swapper);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: 0, error: [5], data: { needs: 'strong' } });
  });

  it('settles an employee’s device on probation by another admin (admin/employees/devices/approve)', async () => {
    const local = service.server.local;
    const employee = await employeeWithDevice(local, service.company, 'support');
    const login = await otpLogin(local, service.company, employee, { device_public_key: newDeviceKeyPair().publicKey });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const admin = await staffMember(local, service.company, 'admin');
    // The offline stage keeps ADMIN_APPROVER_MIN_HOURS at its floor (72): this admin has been one for 4 days.
    await local.app.table.client.send(
      new UpdateCommand({
        TableName: local.app.table.name,
        Key: userKey(service.company.company_id, admin.userId),
        UpdateExpression: 'SET role_since = :then',
        ExpressionAttributeValues: { ':then': Math.floor(Date.now() / 1000) - 4 * 24 * 3600 },
      }),
    );
    const body = { user_id: employee.userId, device_key: login.body.data.device_key, reason: 'ticket 49' };
    // A support employee's strong session may not (admin only); the employee themself neither (in-process tests).
    const support = await staffMember(local, service.company, 'support');
    const refused = await call('POST', '/wallet/v3/admin/employees/devices/approve', body, support.session);
    expect(refused.status).toBe(403);
    const settled = await call('POST', '/wallet/v3/admin/employees/devices/approve', body, admin.session);
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.data).toMatchObject({ user_id: employee.userId, device_key: body.device_key });
  });
});
