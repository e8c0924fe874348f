// An employee's device settles only by another admin (API contract 3.14, second reading): a device an
// employee's OTP login binds stays on probation however long it waits, so its PIN logins are
// SMS-strength and open no back-office route; POST /wallet/v3/admin/employees/devices/approve by
// another admin settles it, recorded as device_approve. The employee themself, an admin who made
// them, a support employee and a customer are refused.
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { STAFF_ACTION_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { otpLogin, pinLogin, signUpWithDevice } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { STAFF_PINS } from '../harness/staff-members.js';
import { type Account, expectFailure, invoke, newCompany, sampleRegistration, testService } from '../helpers.js';
import { employeeWithDevice, type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let admin: StaffMember;

beforeAll(async () => {
  company = await newCompany(service);
  admin = await staffMember(service, company, 'admin');
});

const approve = (by: string, body: Record<string, unknown>) =>
  invoke(service.handlers.adminEmployeesDevicesApprove, {
    path: '/wallet/v3/admin/employees/devices/approve',
    headers: { CompanyID: company.company_id, Authorization: by },
    body: { reason: 'ticket 49: new laptop', ...body },
  });

/** A device the employee's OTP login binds (on probation), with its keys. */
async function boundByOtp(employee: Account) {
  const keys = newDeviceKeyPair();
  const login = await otpLogin(service, company, employee, { device_public_key: keys.publicKey, device_id: 'laptop' });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { ...keys, deviceKey: login.body.data.device_key as string };
}

const acrOfPinLogin = async (device: Awaited<ReturnType<typeof boundByOtp>>) => {
  const login = await pinLogin(service, company, device, STAFF_PINS.login_pin);
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return decodeJwt(login.body.data.token.token).acr;
};

describe('POST /wallet/v3/admin/employees/devices/approve', () => {
  it('settles an employee’s device on probation: its PIN logins are strong from then on, and the action is recorded', async () => {
    const employee = await employeeWithDevice(service, company, 'support');
    const device = await boundByOtp(employee);
    // Days later it is still on probation: time never settles an employee's device.
    service.clock.advance(7 * 24 * 3600);
    try {
      expect(await acrOfPinLogin(device)).toBe('sms');
      const approver = await staffMember(service, company, 'admin');
      const settled = await approve(approver.session, { user_id: employee.userId, device_key: device.deviceKey });
      expect(settled.body.data, JSON.stringify(settled.body)).toEqual({
        message: 'Device approved: its PIN logins are strong',
        user_id: employee.userId,
        device_key: device.deviceKey,
      });
      expect(await acrOfPinLogin(device)).toBe('strong');
      const records = await queryPartitionPrefix(service.app.table, userKey(company.company_id, employee.userId).pk, STAFF_ACTION_PREFIX);
      expect(records.map((record) => record.action)).toContain('device_approve');
      // Again: already settled, answered as approved.
      expect((await approve(approver.session, { user_id: employee.userId, device_key: device.deviceKey })).status).toBe(200);
    } finally {
      service.clock.reset();
    }
  });

  it('is refused (403 code 5) to the employee themself, to a support employee and to a customer; 404 code 6 for a customer’s device', async () => {
    const employee = await staffMember(service, company, 'admin');
    const device = await boundByOtp(employee);
    expectFailure(await approve(employee.session, { user_id: employee.userId, device_key: device.deviceKey }), 403, 5);
    const support = await staffMember(service, company, 'support');
    expectFailure(await approve(support.session, { user_id: employee.userId, device_key: device.deviceKey }), 403, 5);
    const { account, device: customerDevice } = await signUpWithDevice(service, company);
    expectFailure(await approve(account.authorization, { user_id: employee.userId, device_key: device.deviceKey }), 403, 5);
    expectFailure(await approve(admin.session, { user_id: account.userId, device_key: customerDevice.deviceKey }), 404, 6);
    // Another employee's device under this employee's id: 404.
    expectFailure(await approve(admin.session, { user_id: employee.userId, device_key: customerDevice.deviceKey }), 404, 6);
  });

  it('is refused to the admin who registered the employee: another admin approves', async () => {
    const registration = sampleRegistration({
      user_type: 1,
      parent_user_id: undefined,
      referral_code: undefined,
      reason: 'new hire',
      ...STAFF_PINS,
    });
    const registered = await invoke(service.handlers.userRegister, {
      path: '/wallet/v3/auth/user_register',
      headers: { CompanyID: company.company_id, Authorization: admin.session },
      body: registration,
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const employee = { userId: registered.body.data.user_id, registration } as unknown as Account;
    const device = await boundByOtp(employee);
    expectFailure(await approve(admin.session, { user_id: employee.userId, device_key: device.deviceKey }), 403, 5);
    const other = await staffMember(service, company, 'admin');
    expect((await approve(other.session, { user_id: employee.userId, device_key: device.deviceKey })).status).toBe(200);
  });
});
