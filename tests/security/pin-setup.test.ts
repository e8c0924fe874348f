// Customers registered by staff (API contract 3.15, second reading): an employee who registers a
// customer chose both PINs and may hold the phone, so the registration binds no device and marks
// both PINs to be set; until the user sets them from their own proof of the phone (reset_pin from a
// session begun by OTP login: at once, not held), login_pin and transaction_authorization answer
// 403 code 5 with needs pin_setup, and the staff-chosen PIN opens nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { getUser } from '../../lib/store/user-store.js';
import { staffMember } from '../admin/staff.js';
import { otpLogin, PINS, pinLogin } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { type Account, expectFailure, invoke, newCompany, sampleRegistration, testService } from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
let reference = 0;
const payment = (pin: string) => ({
  transaction_pin: pin,
  amount: '1.00',
  currency: 'EUR',
  payee: 'Shop',
  reference: `setup-${reference++}`,
});

/** A customer registered by a support employee, with a device key in the body (which is not bound). */
async function registeredByStaff(): Promise<Account> {
  const support = await staffMember(service, company, 'support');
  const registration = sampleRegistration({ ...PINS, device_public_key: newDeviceKeyPair().publicKey });
  const answer = await invoke(service.handlers.userRegister, {
    path: '/wallet/v3/auth/user_register',
    headers: headers(support.session),
    body: registration,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.data.device_key).toBeUndefined();
  return {
    userId: answer.body.data.user_id,
    referralCode: answer.body.data.referral_code,
    authorization: `Token ${answer.body.data.token.token}`,
    refreshToken: answer.body.data.refresh_token,
    registration,
  };
}

describe('a customer registered by staff', () => {
  it('gets no device and both PINs marked to be set; the staff-chosen PINs open nothing (403 code 5, needs pin_setup)', async () => {
    const account = await registeredByStaff();
    const stored = await getUser(service.app.table, company.company_id, account.userId, true);
    expect(stored).toMatchObject({ login_pin_to_set: 1, transaction_pin_to_set: 1 });
    expect(stored?.device_count ?? 0).toBe(0);
    // The user's own OTP login binds their phone (on probation); the staff-chosen login PIN opens nothing on it.
    const keys = newDeviceKeyPair();
    const login = await otpLogin(service, company, account, { device_public_key: keys.publicKey });
    const device = { ...keys, deviceKey: login.body.data.device_key as string };
    const refused = await pinLogin(service, company, device, PINS.login_pin);
    expectFailure(refused, 403, 5);
    expect(refused.body.data.needs).toBe('pin_setup');
    const otpSession = `Token ${login.body.data.token.token}`;
    const notPaid = await invoke(service.handlers.transactionAuthorization, {
      path: '/wallet/v3/auth/transaction_authorization',
      headers: headers(otpSession),
      body: payment(PINS.transaction_pin),
    });
    expectFailure(notPaid, 403, 5);
    expect(notPaid.body.data.needs).toBe('pin_setup');
  });

  it('sets each PIN at once by reset_pin from the user’s own OTP login (not held), after which the PIN login works', async () => {
    const account = await registeredByStaff();
    const keys = newDeviceKeyPair();
    const login = await otpLogin(service, company, account, { device_public_key: keys.publicKey });
    const otpSession = `Token ${login.body.data.token.token}`;
    const reset = (body: object) =>
      invoke(service.handlers.resetPin, { path: '/wallet/v3/auth/reset_pin', headers: headers(otpSession), body });
    const loginPin = await reset({ pin_type: 1, new_pin: '8052' });
    expect(loginPin.body.data, JSON.stringify(loginPin.body)).toMatchObject({ message: 'PIN reset' });
    expect(loginPin.body.data.pending).toBeUndefined();
    expect((await reset({ pin_type: 2, new_pin: '6174' })).body.data.pending).toBeUndefined();
    const stored = await getUser(service.app.table, company.company_id, account.userId, true);
    expect(stored?.login_pin_to_set).toBeUndefined();
    expect(stored?.transaction_pin_to_set).toBeUndefined();
    const device = { ...keys, deviceKey: login.body.data.device_key as string };
    expect((await pinLogin(service, company, device, '8052')).status).toBe(200);
    // The staff-chosen PIN is no longer the PIN.
    expectFailure(await pinLogin(service, company, device, PINS.login_pin), 400, 17);
  });

  it('leaves a self-registered customer as before: a device bound, no PIN to set', async () => {
    const registration = sampleRegistration({ device_public_key: newDeviceKeyPair().publicKey });
    const answer = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: company.company_id },
      body: registration,
    });
    expect(answer.body.data.device_key).toMatch(/^[0-9a-f]{32}$/);
    const stored = await getUser(service.app.table, company.company_id, answer.body.data.user_id, true);
    expect(stored?.login_pin_to_set).toBeUndefined();
  });
});
