import { confirmAction } from './confirm.js';
import { h, selectField } from './dom.js';
import { when } from './format.js';
import { searchSection, type UserSummary } from './search.js';
import type { Staff } from './staff.js';

// Employees and roles (API contract 3.14, admin): find an employee by an exact key, then give them
// the role support or admin, or take it away. A role that gives power waits for another admin's
// approval (round 6: under Approvals); one taken away is taken at once. The company's last active
// admin keeps theirs (409 code 21).

const ROLES: [string, string][] = [
  ['support', 'support: find users, see them, act (not enable, not approve)'],
  ['admin', 'admin: all of support, and enable, approve recoveries, roles, settings'],
  ['none', 'none: no back-office access'],
];

export function employeesSection(staff: Staff, open: (userId: string) => void): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'employees-title' },
    h('h2', { id: 'employees-title', tabindex: '-1' }, 'Employees and roles'),
    h(
      'p',
      null,
      'Find an employee by their phone (E.164), email or user id, then set their role. Taking a role away holds at their next call; giving one (support, or admin) waits until another admin approves it under Approvals.',
    ),
    searchSection(staff, {
      userType: 1,
      label: 'Employee’s phone, email or user id',
      actions: (user) => [
        roleForm(staff, user),
        h('button', { type: 'button', class: 'secondary', onclick: () => open(user.user_id) }, 'Open account'),
      ],
    }),
  );
}

function roleForm(staff: Staff, user: UserSummary): HTMLElement {
  const role = selectField('New role', ROLES, 'support');
  const outcome = h('p', { role: 'status' });
  const set = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        confirmAction(staff, {
          title: 'Set role',
          effect: `${user.first_name} ${user.last_name}'s back-office role becomes ${role.select.value}.`,
          act: async (reason) => {
            const done = await staff.client.admin.setRole({
              user_id: user.user_id,
              role: role.select.value as 'support' | 'admin' | 'none',
              reason,
            });
            return done.pending
              ? `Role ${done.role} asked: another admin approves it under Approvals, by ${when(done.approve_by)}.`
              : `Role set: ${done.role}.`;
          },
          done: (text) => {
            outcome.textContent = text;
          },
        }),
    },
    'Set role',
  );
  return h('div', { class: 'role-form' }, role.row, set, outcome);
}
