// The last-admin rule counts ACTIVE admins (API contract 3.14, amended in round 6): a demotion, a
// disable (by an admin or the operator's user:disable) and a deletion alike are refused (409 code
// 21) when they would leave the company no active admin, also when two admins take each other out
// at the same moment; an enable and a restore bring an admin back into the count.
import { describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { getActiveAdmins } from '../../lib/store/staff-store.js';
import { getUser } from '../../lib/store/user-store.js';
import { main as disableUser } from '../../scripts/disable-user.js';
import { type Answer, expectFailure, newCompany, runOperator, testService } from '../helpers.js';
import { post } from './actions.js';
import { type StaffMember, staffMember } from './staff.js';

const service = testService();

/** A company of its own with these admins, made by the operator, each signed in strongly. */
async function companyWithAdmins(count: number): Promise<{ company: Company; admins: StaffMember[] }> {
  const company = await newCompany(service);
  const admins: StaffMember[] = [];
  for (let index = 0; index < count; index++) admins.push(await staffMember(service, company, 'admin'));
  return { company, admins };
}

const demote = (company: Company, by: StaffMember, whom: StaffMember) =>
  post(service, company, 'adminEmployeeRole', by.session, { user_id: whom.userId, role: 'none', reason: 'coup' });
const disable = (company: Company, by: StaffMember, whom: StaffMember) =>
  post(service, company, 'adminUsersStatus', by.session, { user_id: whom.userId, status: 'disabled', reason: 'coup' });
const enable = (company: Company, by: StaffMember, whom: StaffMember) =>
  post(service, company, 'adminUsersStatus', by.session, { user_id: whom.userId, status: 'active', reason: 'back' });

/** The employees who are admin and active, by their records; the count and the seats must say the same. */
async function activeAdminsOf(company: Company, admins: StaffMember[]): Promise<string[]> {
  const records = await Promise.all(admins.map(({ userId }) => getUser(service.app.table, company.company_id, userId, true)));
  const active = records
    .filter((record) => record?.status_id === 1 && (record as { role?: string }).role === 'admin')
    .map((record) => record!.user_id);
  const { count, seats } = await getActiveAdmins(service.app.table, company.company_id);
  expect(count).toBe(active.length);
  expect([...seats].sort()).toEqual([...active].sort());
  return active;
}

describe('the last active admin', () => {
  it('finding 4: an admin who disabled the other admin cannot then drop their own role (409 code 21), and can enable them again', async () => {
    const { company, admins } = await companyWithAdmins(2);
    const [a, b] = admins as [StaffMember, StaffMember];
    expect((await disable(company, a, b)).status).toBe(200);
    expect(await activeAdminsOf(company, admins)).toEqual([a.userId]);
    expectFailure(await demote(company, a, a), 409, 21);
    expect(await activeAdminsOf(company, admins)).toEqual([a.userId]);
    expect((await enable(company, a, b)).status).toBe(200);
    expect((await activeAdminsOf(company, admins)).sort()).toEqual([a.userId, b.userId].sort());
    // Two active admins again: now one may step down.
    expect((await demote(company, a, a)).status).toBe(200);
    expect(await activeAdminsOf(company, admins)).toEqual([b.userId]);
  });

  it('is not disabled by the operator’s user:disable (exit 1), nor deleted by their own user/delete (409 code 21)', async () => {
    const { company, admins } = await companyWithAdmins(1);
    const [only] = admins as [StaffMember];
    const run = await runOperator(disableUser, ['--company', company.company_id, '--user', only.userId]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('last active admin');
    // The PIN login just now is the fresh login a deletion asks for.
    expectFailure(await post(service, company, 'userDelete', only.session, {}), 409, 21);
    expect(await activeAdminsOf(company, admins)).toEqual([only.userId]);
  });

  it('leaves the count with a deletion, and comes back into it with a restore', async () => {
    const { company, admins } = await companyWithAdmins(2);
    const [a, b] = admins as [StaffMember, StaffMember];
    expect((await post(service, company, 'userDelete', b.session, {})).status).toBe(200);
    expect(await activeAdminsOf(company, admins)).toEqual([a.userId]);
    expectFailure(await demote(company, a, a), 409, 21);
    expect((await post(service, company, 'adminUsersRestore', a.session, { user_id: b.userId, reason: 'by mistake' })).status).toBe(200);
    expect((await activeAdminsOf(company, admins)).sort()).toEqual([a.userId, b.userId].sort());
  });

  /** Two admins taking each other out at the same moment, `rounds` times: never no active admin. */
  async function race(
    rounds: number,
    moves: (company: Company, a: StaffMember, b: StaffMember) => [Promise<Answer>, Promise<Answer>],
  ): Promise<number[][]> {
    const outcomes: number[][] = [];
    for (let round = 0; round < rounds; round++) {
      const { company, admins } = await companyWithAdmins(2);
      const [a, b] = admins as [StaffMember, StaffMember];
      const answers = await Promise.all(moves(company, a, b));
      const statuses = answers.map((answer) => answer.status).sort();
      // One wins; the other is the last active admin's (409 code 21), or no admin's any more (403 code 5, 401).
      expect(statuses[0], JSON.stringify(answers.map((answer) => answer.body))).toBe(200);
      expect([401, 403, 409]).toContain(statuses[1]);
      for (const answer of answers) expect(answer.status).not.toBe(500);
      expect(await activeAdminsOf(company, admins)).toHaveLength(1);
      outcomes.push(statuses);
    }
    return outcomes;
  }

  it('stays one when two admins demote each other at once', async () => {
    await race(4, (company, a, b) => [demote(company, a, b), demote(company, b, a)]);
  });

  it('stays one when two admins disable each other at once', async () => {
    await race(4, (company, a, b) => [disable(company, a, b), disable(company, b, a)]);
  });

  it('counts one admin out once when two admins demote and disable the same third one at once', async () => {
    for (let round = 0; round < 3; round++) {
      const { company, admins } = await companyWithAdmins(3);
      const [a, b, c] = admins as [StaffMember, StaffMember, StaffMember];
      const [demoted, disabled] = await Promise.all([demote(company, a, c), disable(company, b, c)]);
      expect(disabled.status).toBe(200);
      // The demotion lands first (200), or meets an employee the disabling already took out (404 code 6).
      if (demoted.status !== 200) expectFailure(demoted, 404, 6);
      expect((await activeAdminsOf(company, admins)).sort()).toEqual([a.userId, b.userId].sort());
    }
  });

  it('never counts an employee disabled while a grant made them admin', async () => {
    for (let round = 0; round < 3; round++) {
      const { company, admins } = await companyWithAdmins(2);
      const [a, b] = admins as [StaffMember, StaffMember];
      const agent = await staffMember(service, company, 'support');
      const asked = await post(service, company, 'adminEmployeeRole', a.session, { user_id: agent.userId, role: 'admin', reason: 'x' });
      const answers = await Promise.all([
        post(service, company, 'adminEmployeesApprove', b.session, { grant_id: asked.body.data.grant_id, reason: 'x' }),
        disable(company, a, agent),
      ]);
      for (const answer of answers) expect([200, 409]).toContain(answer.status);
      await activeAdminsOf(company, [...admins, agent]);
    }
  });

  it('stays one when one admin demotes the other while that one disables them', async () => {
    await race(4, (company, a, b) => [demote(company, a, b), disable(company, b, a)]);
  });
});
