// npm run staff:actions (API contract 3.14): the back office's record as an operator reads it: who
// did what to whom, when and why, oldest first; by user (their partition) or by the company's days,
// one employee's with --actor.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { main as staffActions } from '../../scripts/staff-actions.js';
import { type Account, invoke, newCompany, runOperator, signUp, testService } from '../helpers.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();
let company: Company;
let agent: StaffMember;
let admin: StaffMember;
let customer: Account;

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

beforeAll(async () => {
  company = await newCompany(service);
  [agent, admin, customer] = [
    await staffMember(service, company, 'support'),
    await staffMember(service, company, 'admin'),
    await signUp(service, company),
  ];
  const search = (by: StaffMember, reason: string) =>
    invoke(service.handlers.adminUsersSearch, {
      path: '/s',
      headers: { CompanyID: company.company_id, Authorization: by.session },
      body: { user_id: customer.userId, reason },
    });
  expect((await search(agent, 'call 1: customer locked out')).status).toBe(200);
  expect((await search(admin, 'ticket 2: follow-up')).status).toBe(200);
});

describe('npm run staff:actions', () => {
  it('prints every action on a user, oldest first, with who, when and why', async () => {
    const run = await runOperator(staffActions, ['--company', company.company_id, '--user', customer.userId]);
    expect(run.code, run.stderr).toBe(0);
    expect(lines(run.stdout)).toEqual([
      expect.objectContaining({
        actor_id: agent.userId,
        action: 'search',
        user_id: customer.userId,
        reason: 'call 1: customer locked out',
      }),
      expect.objectContaining({ actor_id: admin.userId, action: 'search', user_id: customer.userId, reason: 'ticket 2: follow-up' }),
    ]);
    expect(lines(run.stdout)[0].at).toBe(new Date(lines(run.stdout)[0].at_ms).toISOString());
  });

  it('prints the company’s log of its last days, one employee’s with --actor (the operator’s role grants too)', async () => {
    const all = await runOperator(staffActions, ['--company', company.company_id, '--days', '2']);
    expect(all.code, all.stderr).toBe(0);
    const actions = lines(all.stdout).map(({ actor_id, action }) => `${action} by ${actor_id}`);
    expect(actions).toEqual(expect.arrayContaining([`search by ${agent.userId}`, `search by ${admin.userId}`, 'role by operator']));
    const one = await runOperator(staffActions, ['--company', company.company_id, '--actor', agent.userId, '--days', '1']);
    expect(lines(one.stdout).map(({ actor_id }) => actor_id)).toEqual([agent.userId]);
  });

  it('refuses malformed options with its usage (exit 2)', async () => {
    for (const args of [
      [],
      ['--company', 'x'],
      ['--company', company.company_id, '--days', '0'],
      ['--company', company.company_id, '--actor', 'bob'],
    ]) {
      const run = await runOperator(staffActions, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: npm run staff:actions');
    }
  });
});
