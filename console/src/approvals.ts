import type { OperationData } from '../../client/src/index.js';
import { confirmAction } from './confirm.js';
import { announcer, facts, h, onSubmit, show } from './dom.js';
import { maskedPhone, when } from './format.js';
import { failureText } from './messages.js';
import { reasonField } from './reason-field.js';
import type { Staff } from './staff.js';

// Approvals (API contract 3.14, round 6; admins only): what awaits a second admin, from
// approvals/list: a role asked through Employees and roles, a change of the company's security
// settings, a recovery started from an account. Each shows who asked; the one who asked sees no
// Approve (the API refuses them anyway), and an approval goes through the same confirmation, with
// its reason, as every action.

type Awaiting = OperationData<'adminApprovalsList'>;
type Grant = Awaiting['grants'][number];
type Recovery = Awaiting['recoveries'][number];

const who = (staff: Staff, id: string) => (id === staff.userId ? 'you' : id);

export function approvalsSection(staff: Staff, open: (userId: string) => void): HTMLElement {
  const errors = announcer('alert');
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const reason = reasonField(staff, 'The ticket or review number: reading the list is recorded too.', 'the ticket or review number');
  const form = h('form', { 'aria-label': 'What awaits approval' }, reason.row, h('button', { type: 'submit' }, 'Show what awaits'));
  const list = async () => {
    errors.clear();
    const why = reason.given(errors);
    if (!why) return;
    staff.reason = why;
    try {
      const awaiting = await staff.client.admin.listApprovals({ reason: staff.reason });
      show(result, ...listed(staff, awaiting, open, () => void list()));
    } catch (error) {
      errors.say(failureText(error));
    }
  };
  onSubmit(form, list);
  setTimeout(() => reason.input.focus());
  return h(
    'section',
    { 'aria-labelledby': 'approvals-title' },
    h('h2', { id: 'approvals-title', tabindex: '-1' }, 'Approvals'),
    h(
      'p',
      null,
      'What another admin asked and waits for a second admin: roles, changes of the security settings, recoveries. Unapproved, each is void after 72 hours.',
    ),
    form,
    errors.region,
    result,
  );
}

function listed(staff: Staff, awaiting: Awaiting, open: (userId: string) => void, again: () => void): HTMLElement[] {
  if (!awaiting.grants.length && !awaiting.recoveries.length) return [h('p', { role: 'status' }, 'Nothing awaits approval.')];
  return [
    ...awaiting.grants.map((grant) => grantCard(staff, grant, open, again)),
    ...awaiting.recoveries.map((recovery) => recoveryCard(staff, recovery, open, again)),
  ];
}

/** Approve, or why not: the one who asked cannot. */
function approval(
  staff: Staff,
  askedBy: string,
  title: string,
  effect: string,
  act: (reason: string) => Promise<string>,
  again: () => void,
) {
  if (askedBy === staff.userId) return h('p', { class: 'hint' }, 'You asked for this: another admin must approve it.');
  return h('button', { type: 'button', onclick: () => confirmAction(staff, { title, effect, act, done: again }) }, title);
}

function grantCard(staff: Staff, grant: Grant, open: (userId: string) => void, again: () => void): HTMLElement {
  const common: [string, Node | string][] = [
    ['Asked by', who(staff, grant.requested_by)],
    ['Asked', when(grant.requested_at)],
    ['Void from', when(grant.approve_by)],
  ];
  if (grant.kind === 'role') {
    const employee = grant.user_id ?? '';
    return h(
      'article',
      { class: 'card', 'aria-label': 'Role awaiting approval' },
      h('h3', null, `Role ${grant.role}`),
      facts([['Employee', h('code', null, employee)], ['From role', grant.from_role ?? 'none'], ...common]),
      h(
        'div',
        { class: 'buttons' },
        approval(
          staff,
          grant.requested_by,
          'Approve role',
          `Employee ${employee} becomes ${grant.role} now.`,
          async (reason) => {
            const done = await staff.client.admin.approveRole({ grant_id: grant.grant_id, reason });
            return `Role granted: ${done.role}.`;
          },
          again,
        ),
        h('button', { type: 'button', class: 'secondary', onclick: () => open(employee) }, 'Open account'),
      ),
    );
  }
  return h(
    'article',
    { class: 'card', 'aria-label': 'Settings change awaiting approval' },
    h('h3', null, `Company settings: ${(grant.settings ?? []).join(', ')}`),
    // The change as asked, written as text: it is shown, never run.
    facts([['Change', h('pre', null, JSON.stringify(grant.changes ?? {}, null, 2))], ...common]),
    h(
      'div',
      { class: 'buttons' },
      approval(
        staff,
        grant.requested_by,
        'Approve settings',
        'The change above applies now, for every function within the cache time.',
        async (reason) => {
          await staff.client.admin.approveCompany({ grant_id: grant.grant_id, reason });
          return 'Settings changed.';
        },
        again,
      ),
    ),
  );
}

function recoveryCard(staff: Staff, recovery: Recovery, open: (userId: string) => void, again: () => void): HTMLElement {
  return h(
    'article',
    { class: 'card', 'aria-label': 'Recovery awaiting approval' },
    h('h3', null, `Recovery to ${maskedPhone(recovery.phone_last4)}`),
    facts([
      ['User', h('code', null, recovery.user_id)],
      ['Started by', who(staff, recovery.started_by)],
      ['Started', when(recovery.started_at)],
      ['Void from', when(recovery.approve_by)],
    ]),
    h(
      'div',
      { class: 'buttons' },
      approval(
        staff,
        recovery.started_by,
        'Approve recovery',
        `The move of user ${recovery.user_id} to the number ending ${recovery.phone_last4} starts its hold: the old number is warned, the customer's app can still cancel.`,
        async (reason) => {
          const done = await staff.client.admin.approveRecovery({ user_id: recovery.user_id, change_id: recovery.change_id, reason });
          return `Recovery approved: it can complete from ${when(done.effective_at)}.`;
        },
        again,
      ),
      h('button', { type: 'button', class: 'secondary', onclick: () => open(recovery.user_id) }, 'Open account'),
    ),
  );
}
