import type { OperationData } from '../../client/src/index.js';
import { announcer, facts, field, h, onSubmit, show } from './dom.js';
import { maskedPhone, statusName, userTypeName, when, yesNo } from './format.js';
import { failureText } from './messages.js';
import { reasonField } from './reason-field.js';
import { keyName, searchKey } from './search-key.js';
import type { Staff } from './staff.js';

// "Find a user" (API contract 3.14): one exact key and the reason, then the one user found, or
// none. No listing and no prefix search: the API has neither.

export type UserSummary = OperationData<'adminUsersSearch'>['users'][number];

export interface SearchOptions {
  /** 2: customers (the default screen); 1: employees (Employees and roles). */
  userType: 1 | 2;
  /** The field's label. */
  label: string;
  /** What to offer beside a user found: opening the account, setting a role. */
  actions: (user: UserSummary) => HTMLElement[];
}

/** The search form and its result, in a section of their own. */
export function searchSection(staff: Staff, options: SearchOptions): HTMLElement {
  const errors = announcer('alert');
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const key = field(options.label, {
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    hint: 'Exact only: a phone in E.164 such as +12025550143, the whole email, the 32-character user id, or the referral code.',
  });
  const reason = reasonField(staff, 'The ticket or call number: every search and action is recorded with it.');
  const form = h(
    'form',
    { role: 'search', 'aria-label': options.userType === 1 ? 'Employees' : 'Users' },
    key.row,
    reason.row,
    h('button', { type: 'submit' }, 'Search'),
  );
  onSubmit(form, async () => {
    errors.clear();
    result.replaceChildren();
    const given = searchKey(key.input.value);
    if (!given) {
      errors.say('Enter a phone number in E.164 (+12025550143), an email, a user id (32 characters) or a referral code.');
      key.input.focus();
      return;
    }
    const why = reason.given(errors);
    if (!why) return;
    staff.reason = why;
    try {
      const { users } = await staff.client.admin.searchUsers({ ...given, user_type: options.userType, reason: staff.reason });
      const [user] = users;
      if (!user) {
        show(result, h('p', { role: 'status' }, `No ${options.userType === 1 ? 'employee' : 'user'} has that ${keyName(given)}.`));
        return;
      }
      show(result, summaryCard(user, options.actions(user)));
    } catch (error) {
      errors.say(failureText(error));
    }
  });
  setTimeout(() => key.input.focus());
  return h('div', null, form, errors.region, result);
}

/** A user found: the names as text, the phone and email masked as the API gives them. */
function summaryCard(user: UserSummary, actions: HTMLElement[]): HTMLElement {
  return h(
    'article',
    { class: 'card', 'aria-label': 'User found' },
    h('h3', null, `${user.first_name} ${user.last_name}`),
    facts([
      ['User ID', h('code', null, user.user_id)],
      ['Type', userTypeName(user.user_type)],
      ['Phone', maskedPhone(user.phone_last4)],
      ['Email', user.email_masked ?? '—'],
      ['Phone verified', yesNo(user.phone_verified)],
      ['Status', statusName(user.status_id)],
      ['Registered', when(user.created_date)],
    ]),
    h('div', { class: 'buttons' }, ...actions),
  );
}
