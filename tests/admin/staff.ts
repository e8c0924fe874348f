// Back-office test staff: an employee registered by the operator with a device bound at
// registration (settled at once, API contract 3.15), given a role by the operator, and signed in
// by a PIN login on that device: a strong session, fresh, as the back office asks (3.14, round 6).
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import type { Company } from '../../lib/companies/companies.js';
import { operatorRegistration, userRegister } from '../../lib/registration/user-register.js';
import { userRegisterBody } from '../../lib/registration/user-register-input.js';
import { parseInput } from '../../lib/validation.js';
import { type Device, PINS, pinLogin } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { type Account, type InProcessService, logIn, sampleRegistration } from '../helpers.js';

export type StaffMember = Account & {
  /** A strong session: a PIN login on the device bound at registration, just now. */
  session: string;
  device: Device;
};

/** An employee registered by the operator with a settled device, and no role yet. */
export async function employeeWithDevice(via: InProcessService, company: Company): Promise<Account & { device: Device }> {
  const keys = newDeviceKeyPair();
  const registration = sampleRegistration({
    user_type: 1,
    parent_user_id: undefined,
    referral_code: undefined,
    cretaed_by: undefined,
    ...PINS,
    device_public_key: keys.publicKey,
  });
  const input = await parseInput(userRegisterBody, registration);
  const result = await userRegister(via.app, operatorRegistration(company, input));
  if (!result.device_key) throw new Error('the registration bound no device');
  return {
    userId: result.user_id,
    referralCode: result.referral_code,
    authorization: `Token ${result.token.token}`,
    refreshToken: result.refresh_token,
    registration,
    device: { ...keys, deviceKey: result.device_key },
  };
}

/** A strong session of an employee with a settled device: a PIN login on it now (the Authorization header value). */
export async function strongSession(via: InProcessService, company: Company, employee: { device: Device }): Promise<string> {
  const answer = await pinLogin(via, company, employee.device, PINS.login_pin);
  if (answer.status !== 200) throw new Error(`PIN login answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return `Token ${answer.body.data.token.token}`;
}

/** An SMS-strength session of an employee: an OTP login (the Authorization header value). */
export function smsSession(via: InProcessService, company: Company, employee: Account): Promise<string> {
  via.clock.advance(via.app.config.otp.sendIntervalSeconds + 1);
  return logIn(via, company, employee);
}

/** An employee of the company with the role (none: no role), set by the operator, signed in strongly just now. */
export async function staffMember(via: InProcessService, company: Company, role: 'support' | 'admin' | 'none'): Promise<StaffMember> {
  const employee = await employeeWithDevice(via, company);
  if (role !== 'none') {
    await setEmployeeRole(via.app, { companyId: company.company_id, actorId: 'operator', userId: employee.userId, role, reason: 'setup' });
  }
  return { ...employee, session: await strongSession(via, company, employee) };
}
