import type { KeyObject } from 'node:crypto';
import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { operatorRegistration, userRegister } from '../../lib/registration/user-register.js';
import { userRegisterBody } from '../../lib/registration/user-register-input.js';
import { parseInput } from '../../lib/validation.js';
import { newDeviceKeyPair, signedLoginPin } from './device-keys.js';
import { type Account, type InProcessService, invoke, sampleRegistration } from './in-process-service.js';

// The back office's staff as the tests and the chaos run make them (API contract 3.14, round 6):
// an employee registered by the operator with a device bound at registration (settled at once,
// 3.15) and a role, whose PIN login on that device is a strong session.

export const STAFF_PINS = { login_pin: '2580', transaction_pin: '1397' };

export interface StaffDevice {
  publicKey: string;
  privateKey: KeyObject;
  deviceKey: string;
}

/** An employee registered by the operator with a settled device, and the role given (none: no role). */
export async function employeeWithDevice(
  via: InProcessService,
  company: Company,
  role: 'support' | 'admin' | 'none' = 'none',
): Promise<Account & { device: StaffDevice }> {
  const keys = newDeviceKeyPair();
  const registration = sampleRegistration({
    user_type: 1,
    parent_user_id: undefined,
    referral_code: undefined,
    cretaed_by: undefined,
    ...STAFF_PINS,
    device_public_key: keys.publicKey,
  });
  const input = await parseInput(userRegisterBody, registration);
  const result = await userRegister(via.app, operatorRegistration(company, input));
  if (!result.device_key) throw new Error('the registration bound no device');
  if (role !== 'none') {
    await setEmployeeRole(via.app, { companyId: company.company_id, actorId: 'operator', userId: result.user_id, role, reason: 'setup' });
  }
  return {
    userId: result.user_id,
    referralCode: result.referral_code,
    authorization: `Token ${result.token.token}`,
    refreshToken: result.refresh_token,
    registration,
    device: { ...keys, deviceKey: result.device_key },
  };
}

/** The body of a PIN login on the employee's device now (the service's clock). */
export function staffPinLogin(via: InProcessService, companyId: string, device: StaffDevice) {
  return signedLoginPin(device, companyId, STAFF_PINS.login_pin, { timestamp: epochSeconds(via.clock) });
}

/** A strong session of an employee with a settled device: a PIN login on it now (the Authorization header value). */
export async function strongSession(via: InProcessService, company: Company, employee: { device: StaffDevice }): Promise<string> {
  const answer = await invoke(via.handlers.loginPin, {
    path: '/wallet/v3/auth/login_pin',
    headers: { CompanyID: company.company_id },
    body: staffPinLogin(via, company.company_id, employee.device),
  });
  if (answer.status !== 200) throw new Error(`PIN login answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return `Token ${answer.body.data.token.token}`;
}
