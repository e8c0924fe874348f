// Staff who strip the owner's defences start a freeze (API contract 3.15, second reading): a support
// employee who removes the owner's settled device, ends their sessions or disables them leaves the
// owner nothing strong to cancel with. So the same action ends every change an SMS-strength session
// asked for (reason support_freeze) and refuses new held changes for 72 h (403 code 5, needs
// strong); a strong session still commits at once, and a recovery (via support) is left to staff.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { STAFF_FREEZE_SECONDS } from '../../lib/pending-changes/staff-freeze.js';
import { pendingChangeKey } from '../../lib/store/keys.js';
import { type StaffMember, staffMember } from '../admin/staff.js';
import { otpLogin, PINS, signUpWithDevice, strongSession } from '../devices/device-helpers.js';
import { newDeviceKeyPair } from '../harness/device-keys.js';
import { type Account, expectFailure, invoke, newCompany, testService } from '../helpers.js';

const service = testService();
let company: Company;
let support: StaffMember;

beforeAll(async () => {
  company = await newCompany(service);
  support = await staffMember(service, company, 'support');
});

afterEach(() => service.clock.reset());

const headers = (authorization: string) => ({ CompanyID: company.company_id, Authorization: authorization });
const post = (handler: keyof typeof service.handlers, authorization: string, body: unknown = {}) =>
  invoke(service.handlers[handler], { path: '/x', headers: headers(authorization), body });
const staffAct = (handler: 'adminUsersSessionsEnd' | 'adminUsersStatus' | 'adminUsersDevicesRemove', body: object) =>
  post(handler, support.session, { reason: 'ticket 49', ...body });

/** The swapper's session: an OTP login to the owner's number (SMS-strength). */
async function swapperSession(account: Account, bind = false): Promise<{ authorization: string; deviceKey?: string }> {
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const device = bind ? newDeviceKeyPair() : undefined;
  const login = await otpLogin(service, company, account, device ? { device_public_key: device.publicKey, device_id: 'swap' } : {});
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { authorization: `Token ${login.body.data.token.token}`, deviceKey: login.body.data.device_key };
}

const heldReset = (authorization: string) => post('resetPin', authorization, { pin_type: 2, new_pin: '9173' });

async function changeItem(account: Account, kind: string): Promise<Record<string, any> | undefined> {
  const { Item } = await service.app.table.client.send(
    new GetCommand({
      TableName: service.app.table.name,
      Key: pendingChangeKey(company.company_id, account.userId, kind),
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('staff who strip the owner’s defences', () => {
  it('sessions/end ends the swapper’s held reset (support_freeze) and refuses a new one for 72 h; a strong session still changes at once', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    const swapper = await swapperSession(account);
    const held = await heldReset(swapper.authorization);
    expect(held.body.data.pending).toBe(1);

    const ended = await staffAct('adminUsersSessionsEnd', { user_id: account.userId });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(await changeItem(account, 'transaction_pin')).toMatchObject({
      change_id: held.body.data.change_id,
      ended_reason: 'support_freeze',
    });

    // The swapper logs in again by OTP: no held change is taken for 72 h.
    const again = await swapperSession(account);
    const refused = await heldReset(again.authorization);
    expectFailure(refused, 403, 5);
    expect(refused.body.data.needs).toBe('strong');
    expect(await changeItem(account, 'transaction_pin')).toMatchObject({ ended_reason: 'support_freeze' });

    // The owner's strong session is not held, so not frozen: its PIN change commits at once.
    const strong = await strongSession(service, company, device);
    const changed = await post('changePin', strong, { pin_type: 2, current_pin: PINS.transaction_pin, new_pin: '2468' });
    expect(changed.body.data, JSON.stringify(changed.body)).toMatchObject({ message: expect.any(String), revoked: expect.any(Number) });

    // After the freeze a held change is taken again.
    service.clock.advance(STAFF_FREEZE_SECONDS);
    const later = await swapperSession(account);
    expect((await heldReset(later.authorization)).body.data.pending).toBe(1);
  });

  it('removing a settled device freezes; removing a device on probation does not', async () => {
    const { account } = await signUpWithDevice(service, company);
    const swapper = await swapperSession(account, true);
    expect(swapper.deviceKey).toMatch(/^[0-9a-f]{32}$/);
    // A device on probation removed by staff: no freeze, a held change is still taken.
    expect((await staffAct('adminUsersDevicesRemove', { user_id: account.userId, device_key: swapper.deviceKey })).status).toBe(200);
    const swapperAgain = await swapperSession(account);
    const held = await heldReset(swapperAgain.authorization);
    expect(held.body.data.pending).toBe(1);

    // The owner's settled device removed by staff: the held reset ends, and new ones are refused.
    const owned = await invoke(service.handlers.devices, { method: 'GET', path: '/d', headers: headers(swapperAgain.authorization) });
    const settled = (owned.body.data.devices as { device_key: string }[])[0]!.device_key;
    expect((await staffAct('adminUsersDevicesRemove', { user_id: account.userId, device_key: settled })).status).toBe(200);
    expect(await changeItem(account, 'transaction_pin')).toMatchObject({ ended_reason: 'support_freeze' });
    expectFailure(await heldReset((await swapperSession(account)).authorization), 403, 5);
  });

  it('disabling the user ends their SMS-strength changes in the same write', async () => {
    const { account } = await signUpWithDevice(service, company);
    const swapper = await swapperSession(account);
    const held = await heldReset(swapper.authorization);
    expect(held.body.data.pending).toBe(1);
    const disabled = await staffAct('adminUsersStatus', { user_id: account.userId, status: 'disabled' });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(await changeItem(account, 'transaction_pin')).toMatchObject({ ended_reason: 'support_freeze' });
  });

  it('leaves a change a strong session asked for', async () => {
    const { account, device } = await signUpWithDevice(service, company);
    // A fresh strong session's reset without a phone proof is held too (second reading): acr strong.
    const strong = await strongSession(service, company, device);
    const held = await heldReset(strong);
    expect(held.body.data.pending, JSON.stringify(held.body)).toBe(1);
    expect((await staffAct('adminUsersSessionsEnd', { user_id: account.userId })).status).toBe(200);
    const item = await changeItem(account, 'transaction_pin');
    expect(item?.change_id).toBe(held.body.data.change_id);
    expect(item?.ended_reason).toBeUndefined();
  });
});
