// The back office's search (API contract 3.14): one exact key, a masked summary, each search counted
// against the employee's hour (counted before compared: searches at once pass no more than the
// ceiling) and recorded, found or not.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { STAFF_ACTION_PREFIX, userKey } from '../../lib/store/keys.js';
import { queryPartitionPrefix } from '../../lib/store/partition-query.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import {
  type Account,
  expectFailure,
  type InProcessService,
  invoke,
  logIn,
  newCompany,
  newEmployee,
  signUp,
  testService,
} from '../helpers.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let agent: StaffMember;
let customer: Account;

const supportAgent = (via: InProcessService) => staffMember(via, company, 'support');

beforeAll(async () => {
  company = await newCompany(service);
  agent = await supportAgent(service);
  customer = await signUp(service, company);
});

const search = (body: Record<string, unknown>, authorization = agent.session, via = service) =>
  invoke(via.handlers.adminUsersSearch, {
    path: '/wallet/v3/admin/users/search',
    headers: { CompanyID: company.company_id, Authorization: authorization },
    body,
  });

describe('users/search', () => {
  it('finds a customer by phone, email, user id or referral code, with the phone and email masked', async () => {
    const phone = String(customer.registration.phone_number);
    const email = String(customer.registration.email);
    const expected = {
      user_id: customer.userId,
      user_type: 2,
      first_name: customer.registration.first_name,
      last_name: customer.registration.last_name,
      phone_last4: phone.slice(-4),
      email_masked: `${email[0]}***${email.slice(email.indexOf('@'))}`,
      phone_verified: expect.any(Number),
      status_id: 1,
      created_date: expect.any(Number),
    };
    for (const key of [
      { phone: `+1${phone}` },
      { email: email.toUpperCase() },
      { user_id: customer.userId },
      { referral_code: customer.referralCode.toLowerCase() },
    ]) {
      const answer = await search({ ...key, reason: 'call 8812' });
      expect(answer.status, JSON.stringify(key)).toBe(200);
      expect(answer.body.data.users, JSON.stringify(key)).toEqual([expected]);
      expect(JSON.stringify(answer.body)).not.toContain(email);
      expect(JSON.stringify(answer.body)).not.toContain(phone);
    }
  });

  it('answers an empty list for a key nobody holds, or a customer’s number searched as an employee’s', async () => {
    expect((await search({ phone: '+12025550100', reason: 'x' })).body.data).toEqual({ users: [] });
    const phone = `+1${customer.registration.phone_number}`;
    expect((await search({ phone, user_type: 1, reason: 'x' })).body.data).toEqual({ users: [] });
  });

  it('takes exactly one exact key: none, two or a partial one is 400 code 1 naming it; no reason is 400 code 1', async () => {
    const refused = async (body: Record<string, unknown>, field: string) => {
      const answer = await search(body);
      expectFailure(answer, 400, 1);
      expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toContain(field);
    };
    await refused({ reason: 'x' }, 'phone');
    await refused({ phone: `+1${customer.registration.phone_number}`, user_id: customer.userId, reason: 'x' }, 'user_id');
    await refused({ phone: String(customer.registration.phone_number).slice(0, 6), reason: 'x' }, 'phone');
    await refused({ email: 'ada@', reason: 'x' }, 'email');
    await refused({ user_id: customer.userId }, 'reason');
  });

  it('is refused to a customer and to an employee with no role (403 code 5)', async () => {
    const noRole = await newEmployee(service, company);
    for (const session of [await logIn(service, company, customer), await logIn(service, company, noRole)]) {
      expectFailure(await search({ user_id: customer.userId, reason: 'x' }, session), 403, 5);
    }
  });

  it('records every search, found or not, with its reason, in the company’s log and on the user found', async () => {
    const reason = `ticket ${Date.now()}`;
    await search({ user_id: customer.userId, reason });
    await search({ phone: '+12025550101', reason });
    const onUser = await queryPartitionPrefix(service.app.table, userKey(company.company_id, customer.userId).pk, STAFF_ACTION_PREFIX);
    expect(onUser.filter((record) => record.reason === reason)).toEqual([
      expect.objectContaining({ actor_id: agent.userId, action: 'search', user_id: customer.userId }),
    ]);
    const logged = (await queryStaffChain(service.app.table, company.company_id)).filter((record) => record.reason === reason);
    expect(logged.map(({ action, user_id }) => ({ action, user_id }))).toEqual([
      { action: 'search', user_id: customer.userId },
      { action: 'search', user_id: undefined },
    ]);
  });

  it('counts ADMIN_LOOKUPS_PER_HOUR per employee before it compares: of 6 searches at once with a ceiling of 3, 3 pass, then 429 code 12', async () => {
    const limited = testService({ ADMIN_LOOKUPS_PER_HOUR: '3' });
    const own = await supportAgent(limited);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => search({ user_id: customer.userId, reason: 'x' }, own.session, limited)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = answers.find((answer) => answer.status === 429)!;
    expectFailure(refused, 429, 12);
    expect(Number(refused.headers?.['retry-after'])).toBeGreaterThan(0);
    // Another employee's hour is their own.
    const other = await supportAgent(limited);
    expect((await search({ user_id: customer.userId, reason: 'x' }, other.session, limited)).status).toBe(200);
  });
});
