import { randomInt, randomUUID } from 'node:crypto';
import { type Company, createCompany } from '../../../lib/companies/companies.js';
import { verifyStaffChain } from '../../../lib/staff/staff-chain-verify.js';
import { adminCountKey } from '../../../lib/store/keys.js';
import { type Answer, type EndpointName, type InProcessService, invoke } from '../in-process-service.js';
import { employeeWithDevice, strongSession } from '../staff-members.js';
import type { StoredItem } from '../table-snapshot.js';
import type { ChaosContext } from './context.js';
import { errorOf, jitter, overlapped, type Sent } from './pending-changes.js';

// Races in the back office under faults (issue 48; contract 3.14, round 6). Each runs once, in a
// company of its own made before the faults are on (employees with strong sessions): the company's
// two admins take each other out at the same moment (each demotes the other; each disables the
// other; one demotes while the other disables); or, in a company of three admins and a support
// employee whom the first asked to make admin (also before the faults), the second approves that
// grant while the third disables the employee and demotes the first. Of two admins taking each
// other out, at most one may win; afterwards (tests/harness/chaos/run.ts) every company the run made
// must keep an active admin, its count and seats must be its active admins, and its staff chain
// must be whole (npm run staff:verify's check), however the writers interleaved.

type RaceKind = 'demote each other' | 'disable each other' | 'demote against disable' | 'grant against disable';
const KINDS: RaceKind[] = ['demote each other', 'disable each other', 'demote against disable', 'grant against disable'];

interface Member {
  userId: string;
  authorization: string;
}

interface StaffCompany {
  company: Company;
  /** Two for the races of two admins; three for the grant's. */
  admins: Member[];
  support: Member;
  kind: RaceKind;
  /** The grant of admin to the support employee, asked by the first admin (the grant's race only). */
  grantId?: string;
  raced: boolean;
}

/** The companies of the staff races, each with its back office, made before the faults are on (`count` of them). */
export function staffCompanies(service: InProcessService, count: number): Promise<StaffCompany[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => staffCompany(service, KINDS[index % KINDS.length]!)));
}

/** A company for one race of the kind: its admins and support employee signed in strongly, the grant asked for the grant's race. */
async function staffCompany(service: InProcessService, kind: RaceKind): Promise<StaffCompany> {
  const company = await createCompany(service.app.table, service.clock, `chaos staff ${randomInt(1e9)}`);
  const member = async (role: 'support' | 'admin'): Promise<Member> => {
    const employee = await employeeWithDevice(service, company, role);
    return { userId: employee.userId, authorization: await strongSession(service, company, employee) };
  };
  const admins = [await member('admin'), await member('admin')];
  const support = await member('support');
  let grantId: string | undefined;
  if (kind === 'grant against disable') {
    admins.push(await member('admin'));
    const asked = await invoke(service.handlers.adminEmployeeRole, {
      path: '/adminEmployeeRole',
      headers: { CompanyID: company.company_id, Authorization: admins[0]!.authorization },
      body: { user_id: support.userId, role: 'admin', reason: 'chaos staff race' },
    });
    if (asked.status !== 200 || asked.body.data.pending !== 1)
      throw new Error(`a grant of admin did not pend: ${JSON.stringify(asked.body)}`);
    grantId = asked.body.data.grant_id;
  }
  return { company, admins, support, kind, grantId, raced: false };
}

export function staffRaces(ctx: ChaosContext, companies: StaffCompany[]) {
  const { report, wrong, isAmbiguous, untilDefinite, service } = ctx;
  const figures = report.staff;
  const unsettled: { race: StaffCompany; sent: Sent[] }[] = [];

  const send = async (race: StaffCompany, name: EndpointName, by: Member, body: Record<string, unknown>): Promise<Sent> => {
    const headers = { CompanyID: race.company.company_id, Authorization: by.authorization, 'Idempotency-Key': randomUUID() };
    const via = Math.random() < 0.5 ? service : ctx.slow;
    const again = async () => {
      const answer = await invoke(via.handlers[name], { path: `/${name}`, headers, body: { reason: 'chaos staff race', ...body } });
      report.requests++;
      report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
      if (answer.status >= 500 && answer.status !== 503) wrong(`${name} answered ${answer.status}`, answer);
      return answer;
    };
    const startedAt = Date.now();
    let endedAt = 0;
    let ambiguous = false;
    const answer = await untilDefinite(async () => {
      const each = await again();
      endedAt ||= Date.now();
      ambiguous ||= isAmbiguous(each);
      return each;
    }, 1);
    return { name, answer, ambiguous, startedAt, endedAt, again };
  };
  const racing = (race: StaffCompany, name: EndpointName, by: Member, body: Record<string, unknown>) =>
    jitter(20).then(() => send(race, name, by, body));

  /** What the answers of a race say, once each is definite. */
  const judge = ({ kind }: StaffCompany, sent: Sent[]) => {
    figures.byKind[kind] = (figures.byKind[kind] ?? 0) + 1;
    if (sent.length >= 2 && overlapped(sent[0], sent[1])) figures.overlapped++;
    for (const each of sent) {
      if (is409(each.answer, 21)) figures.lastAdminRefused++;
      if (![200, 401, 403, 404, 409].includes(each.answer.status))
        wrong(`a ${kind} race's ${each.name} answered ${errorOf(each.answer)}`, each.answer);
    }
    // Two admins taking each other out: at most one wins (the count of active admins is a condition of both).
    const [first, second] = sent;
    if (kind !== 'grant against disable' && first?.answer.status === 200 && second?.answer.status === 200) {
      wrong(`both admins won a "${kind}" race: the company may have no active admin`);
    }
  };

  const run = async (race: StaffCompany) => {
    const [a, b, c] = race.admins as [Member, Member, Member | undefined];
    const take = (name: 'adminEmployeeRole' | 'adminUsersStatus', by: Member, whom: Member) =>
      racing(
        race,
        name,
        by,
        name === 'adminEmployeeRole' ? { user_id: whom.userId, role: 'none' } : { user_id: whom.userId, status: 'disabled' },
      );
    let sent: Sent[];
    if (race.kind === 'demote each other') sent = await Promise.all([take('adminEmployeeRole', a, b), take('adminEmployeeRole', b, a)]);
    else if (race.kind === 'disable each other') sent = await Promise.all([take('adminUsersStatus', a, b), take('adminUsersStatus', b, a)]);
    else if (race.kind === 'demote against disable')
      sent = await Promise.all([take('adminEmployeeRole', a, b), take('adminUsersStatus', b, a)]);
    else {
      // A asked for the support employee as admin (before the faults); now B approves, C disables them, C demotes A.
      figures.grants++;
      sent = await Promise.all([
        racing(race, 'adminEmployeesApprove', b, { grant_id: race.grantId }),
        take('adminUsersStatus', c!, race.support),
        take('adminEmployeeRole', c!, a),
      ]);
    }
    figures.races++;
    if (sent.some((each) => isAmbiguous(each.answer))) unsettled.push({ race, sent });
    else judge(race, sent);
  };

  /** A staff race as a flow of the run, on a company not raced yet (none left: nothing). */
  const flow = async () => {
    const race = companies.find((each) => !each.raced);
    if (!race) return;
    race.raced = true;
    await run(race);
  };

  /** Every race's ambiguous requests sent again with their key (faults off), then the race judged. */
  const afterFaults = async () => {
    for (const { race, sent } of unsettled) {
      for (const each of sent) {
        if (!isAmbiguous(each.answer)) continue;
        figures.retried++;
        each.answer = await untilDefinite(each.again, 20);
        if (isAmbiguous(each.answer)) wrong(`an ambiguous ${each.name} retried with its key had no definite outcome`, each.answer);
      }
      judge(race, sent);
    }
  };

  return { flow, afterFaults };
}

const is409 = (answer: Answer, code: number) => answer.status === 409 && answer.body.error[0] === code;

/**
 * A company's back office over its items (faults off): an active admin kept; the count of active
 * admins and their seats exactly the employees who are admin and active; and the staff chain whole.
 * Answers the problems found.
 */
export async function staffCheck(ctx: ChaosContext, companyId: string, items: StoredItem[]): Promise<string[]> {
  const problems: string[] = [];
  const active = items
    .filter((item) => item.sk === 'PROFILE' && item.user_type === 1 && item.status_id === 1 && item.role === 'admin')
    .map((item) => String(item.user_id))
    .sort();
  const seats = items
    .filter((item) => item.pk === adminCountKey(companyId).pk && item.sk.startsWith('SEAT#'))
    .map((item) => String(item.user_id))
    .sort();
  const count = Number(
    items.find((item) => item.pk === adminCountKey(companyId).pk && item.sk === adminCountKey(companyId).sk)?.admins ?? 0,
  );
  if (!active.length) problems.push(`company ${companyId} has no active admin`);
  if (JSON.stringify(seats) !== JSON.stringify(active)) {
    problems.push(`company ${companyId}: seats ${seats.join(',') || 'none'} are not its active admins ${active.join(',') || 'none'}`);
  }
  if (count !== active.length) problems.push(`company ${companyId} counts ${count} active admins, not ${active.length}`);
  const chain = await verifyStaffChain(ctx.service.app.table, companyId);
  ctx.report.staff.chainRecords += chain.checked;
  if (!chain.whole) problems.push(`company ${companyId}'s staff chain: ${chain.problem.detail}`);
  return problems;
}
