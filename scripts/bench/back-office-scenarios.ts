import { setEmployeeRole } from '../../lib/admin/employee-role.js';
import { userRegisterEndpoint } from '../../lib/api/user-register-endpoint.js';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { operatorRegistration, userRegister } from '../../lib/registration/user-register.js';
import { userRegisterBody } from '../../lib/registration/user-register-input.js';
import { UserType } from '../../lib/users/user-types.js';
import { parseInput } from '../../lib/validation.js';
import { newDeviceKeyPair, signedLoginPin } from '../../tests/harness/device-keys.js';
import type { EventInput, InProcessService } from '../../tests/harness/in-process-service.js';
import { companyHeaders, latestCodes, setup } from './account-change-scenarios.js';
import type { ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of the back office (API contract 3.14): two admins, each made by the
// operator with a device and signed in strongly by a PIN login on it (round 6: the back office takes
// strong sessions only), serve `calls` customers: a search by phone and a view of each, the end of
// their sessions, a recovery started by one admin and approved by the other, its completion by a
// login to the new number once the hold has passed (the admins sign in again), a disable and an
// enable, and a second recovery cancelled. All setup is unmeasured; the customers are registered at the bench-only scrypt cost.

const REASON = 'bench: ticket 1';

/** `phones`: 4 x calls numbers no one holds: the two admins' (2), the customers', their recovered and their second new numbers. */
export async function runBackOfficeScenarios(
  service: InProcessService,
  company: Company,
  phones: string[],
  run: (spec: ScenarioSpec) => Promise<unknown>,
  progress: (line: string) => void,
): Promise<void> {
  const { app, handlers } = service;
  const calls = (phones.length - 2) / 3;
  if (!Number.isInteger(calls) || calls < 2) throw new Error('the back-office scenarios need 3 phones per call and 2 more');
  const [firstAdminPhone, secondAdminPhone] = phones.slice(0, 2) as [string, string];
  const customerPhones = phones.slice(2, 2 + calls);
  const recoveredNumbers = phones.slice(2 + calls, 2 + 2 * calls);
  const cancelledNumbers = phones.slice(2 + 2 * calls);
  const headers = companyHeaders(company);
  const target = (phone: string, userType: number) => ({ dial_code: '+1', phone_number: phone, user_type: userType, otp_type: 1 });
  const register = async (phone: string, userType: number, authorization?: string) =>
    (
      await setup(handlers.userRegister, {
        path: '/r',
        headers: headers(authorization),
        body: {
          ...userRegisterEndpoint.examples.request,
          phone_number: phone,
          user_type: userType,
          email: `bo.${phone}@example.com`,
          referral_code: '',
        },
      })
    ).body.data.user_id as string;

  progress(`setting up two admins and ${calls} customers`);
  const adminDevices: { privateKey: ReturnType<typeof newDeviceKeyPair>['privateKey']; deviceKey: string }[] = [];
  for (const phone of [firstAdminPhone, secondAdminPhone]) {
    const keys = newDeviceKeyPair();
    const body = {
      ...userRegisterEndpoint.examples.request,
      phone_number: phone,
      email: `bo.${phone}@example.com`,
      referral_code: '',
      device_public_key: keys.publicKey,
    };
    const input = await parseInput(userRegisterBody, { ...body, user_type: UserType.EMPLOYEE });
    const registered = await userRegister(app, operatorRegistration(company, input));
    await setEmployeeRole(app, {
      companyId: company.company_id,
      actorId: 'operator',
      userId: registered.user_id,
      role: 'admin',
      reason: 'bench',
    });
    adminDevices.push({ privateKey: keys.privateKey, deviceKey: registered.device_key! });
  }
  /** Each admin's strong session: a PIN login now on the device the operator bound. */
  const strongAdmins = async (): Promise<[string, string]> => {
    const tokens: string[] = [];
    for (const device of adminDevices) {
      const body = signedLoginPin(device, company.company_id, String(userRegisterEndpoint.examples.request.login_pin), {
        timestamp: epochSeconds(service.clock),
      });
      tokens.push(`Token ${(await setup(handlers.loginPin, { path: '/p', headers: headers(), body })).body.data.token.token}`);
    }
    return tokens as [string, string];
  };
  let [first, second] = await strongAdmins();
  const customers: string[] = [];
  for (const phone of customerPhones) customers.push(await register(phone, UserType.CUSTOMER));

  const act = (by: string, path: string, body: Record<string, unknown>): EventInput => ({
    path,
    headers: headers(by),
    body: { ...body, reason: REASON },
  });
  const each = (name: ScenarioSpec['endpoint']) => ({ endpoint: name, handler: handlers[name], calls });
  await run({
    ...each('adminUsersSearch'),
    outcome: 'found by phone',
    expectStatus: 200,
    event: (index) => act(first, '/s', { phone: `+1${customerPhones[index]}` }),
  });
  await run({
    ...each('adminUsersView'),
    outcome: 'masked',
    expectStatus: 200,
    event: (index) => act(second, '/v', { user_id: customers[index] }),
  });
  // Each customer has the registration's session.
  await run({
    ...each('adminUsersSessionsEnd'),
    outcome: 'every session (one)',
    expectStatus: 200,
    event: (index) => act(first, '/e', { user_id: customers[index] }),
  });
  const changeIds: string[] = [];
  await run({
    ...each('adminUsersPhoneRecover'),
    outcome: 'started',
    expectStatus: 200,
    event: (index) => act(first, '/r', { user_id: customers[index], dial_code: '+1', phone_number: recoveredNumbers[index] }),
    onAnswer: (index, { body }) => (changeIds[index] = body.data.change_id),
  });
  await run({
    ...each('adminUsersPhoneApprove'),
    outcome: 'approved',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => act(second, '/a', { user_id: customers[index], change_id: changeIds[index] }),
  });
  // The completion: once the hold has passed, a login to each new number (its code sent in the
  // setup), measured at verify_otp; the admins sign in again (their tokens ran out meanwhile).
  service.clock.advance(app.config.phoneChangeHoldHours * 3600 + 1);
  await app.companies.require(company.company_id);
  [first, second] = await strongAdmins();
  for (const phone of recoveredNumbers) await setup(handlers.loginPhone, { path: '/l', headers: headers(), body: target(phone, 2) });
  const codes = latestCodes(app.config.sms.outboxFile);
  await run({
    ...each('verifyOtp'),
    outcome: 'login completing a pending change',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({
      path: '/v',
      headers: headers(),
      body: { ...target(recoveredNumbers[index]!, 2), otp: codes.get(`+1${recoveredNumbers[index]}`) },
    }),
  });
  await run({
    ...each('adminUsersStatus'),
    outcome: 'disabled (one session)',
    expectStatus: 200,
    event: (index) => act(first, '/d', { user_id: customers[index], status: 'disabled' }),
  });
  await run({
    ...each('adminUsersStatus'),
    outcome: 'enabled',
    expectStatus: 200,
    event: (index) => act(second, '/d', { user_id: customers[index], status: 'active' }),
  });
  // A second recovery of each, started in the setup, cancelled.
  const secondChanges: string[] = [];
  for (const [index, customer] of customers.entries()) {
    const started = await setup(
      handlers.adminUsersPhoneRecover,
      act(first, '/r', { user_id: customer, dial_code: '+1', phone_number: cancelledNumbers[index] }),
    );
    secondChanges.push(started.body.data.change_id);
  }
  await run({
    ...each('adminUsersPhoneCancel'),
    outcome: 'awaiting approval',
    expectStatus: 200,
    event: (index) => act(second, '/c', { user_id: customers[index], change_id: secondChanges[index] }),
  });
}
