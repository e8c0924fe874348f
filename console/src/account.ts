import type { OperationData } from '../../client/src/index.js';
import { confirmAction } from './confirm.js';
import { announcer, facts, field, h, show, table } from './dom.js';
import { maskedPhone, statusName, userTypeName, when, yesNo } from './format.js';
import { failureText } from './messages.js';
import type { Staff } from './staff.js';

// The account (API contract 3.14, users/view): the profile masked (whole for an admin who asks),
// devices and sessions, PINs, the pending phone change, the deletion, security events and the staff
// actions on this user; and each action, behind its confirmation. Every value is text.

type View = OperationData<'adminUsersView'>;
type PendingChange = NonNullable<View['pending_phone_change']>;

const STATUS = { active: 1, disabled: 2, deleting: 4 } as const;

const sessions = (count: number) => `${count} session${count === 1 ? '' : 's'}`;

/** Shows a user's account in `root`; each action's success shows it again, read anew. */
export async function showAccount(root: HTMLElement, staff: Staff, userId: string, reveal = false, outcome?: string): Promise<void> {
  const errors = announcer('alert');
  show(root, h('p', { role: 'status' }, 'Loading the account…'));
  let view: View;
  try {
    view = await staff.client.admin.viewUser({ user_id: userId, reason: staff.reason, ...(reveal ? { reveal: 1 as const } : {}) });
  } catch (error) {
    errors.say(failureText(error));
    show(root, h('h2', { tabindex: '-1' }, 'Account'), errors.region);
    return;
  }
  const again = (message?: string, revealAgain = reveal) => showAccount(root, staff, userId, revealAgain, message);
  const { user } = view;
  const title = h('h2', { id: 'account-title', tabindex: '-1' }, `${user.first_name} ${user.last_name}`);
  show(
    root,
    h(
      'section',
      { 'aria-labelledby': 'account-title', class: 'account' },
      title,
      outcome ? h('p', { class: 'message status', role: 'status' }, outcome) : null,
      errors.region,
      profileSection(view, reveal),
      h('div', { class: 'buttons', role: 'group', 'aria-label': 'Actions' }, ...accountActions(staff, view, again)),
      devicesSection(staff, view, again),
      sessionsSection(staff, view, again),
      pinsSection(view),
      phoneChangeSection(staff, view, again),
      heldChangesSection(staff, view, again),
      deletionSection(staff, view, again),
      eventsSection(view),
      staffActionsSection(view, staff.userId),
    ),
  );
  title.focus();
}

function profileSection({ user, referral_count }: View, reveal: boolean): HTMLElement {
  const phone = reveal && user.phone_number ? `${user.dial_code ?? ''} ${user.phone_number}` : maskedPhone(user.phone_last4);
  const email = reveal && user.email !== undefined ? (user.email ?? '—') : (user.email_masked ?? '—');
  return h(
    'section',
    { 'aria-labelledby': 'profile-title' },
    h('h3', { id: 'profile-title' }, 'Profile'),
    facts([
      ['User ID', h('code', null, user.user_id)],
      ['Type', userTypeName(user.user_type)],
      ...(user.user_type === 1 ? ([['Role', user.role ?? 'none']] as [string, string][]) : []),
      ['Status', statusName(user.status_id)],
      ['Phone', phone],
      ['Phone verified', yesNo(user.phone_verified)],
      ['Email', email],
      ['Country', user.country_id ?? '—'],
      ['KYC status', String(user.kyc_status)],
      ['Referral code', user.referral_code],
      ['Referred users', String(referral_count)],
      ['Registered', when(user.created_date)],
      ['Updated', when(user.updated_date)],
    ]),
  );
}

type Again = (outcome?: string, reveal?: boolean) => Promise<void>;

/** The account-wide actions this staff member's role and the account's state allow. */
function accountActions(staff: Staff, { user }: View, again: Again): HTMLElement[] {
  const name = `${user.first_name} ${user.last_name}`;
  const userId = user.user_id;
  const buttons: HTMLElement[] = [];
  const action = (label: string, run: () => void) => buttons.push(h('button', { type: 'button', onclick: run }, label));

  action('End sessions', () =>
    confirmAction(staff, {
      title: 'End sessions',
      effect: `Every session of ${name} ends at once, on every device. They can sign in again by code straight away.`,
      act: async (reason) => `${sessions((await staff.client.admin.endSessions({ user_id: userId, reason })).revoked)} ended.`,
      done: again,
    }),
  );
  if (user.status_id === STATUS.active) {
    action('Disable', () =>
      confirmAction(staff, {
        title: 'Disable',
        effect: `${name} is disabled: every session ends and no sign-in works until an admin enables the account.`,
        act: async (reason) => {
          const done = await staff.client.admin.setStatus({ user_id: userId, status: 'disabled', reason });
          return `Disabled; ${sessions(done.revoked)} ended.`;
        },
        done: again,
      }),
    );
  }
  if (user.status_id === STATUS.disabled && staff.role === 'admin') {
    action('Enable', () =>
      confirmAction(staff, {
        title: 'Enable',
        effect: `${name} can sign in again. Enable only once you know who asked to disable it, and why.`,
        act: async (reason) => {
          await staff.client.admin.setStatus({ user_id: userId, status: 'active', reason });
          return 'Enabled.';
        },
        done: again,
      }),
    );
  }
  if (user.status_id === STATUS.active) {
    action('Start recovery', () => {
      const dialCode = field('Dial code', { required: true, value: '+1', inputmode: 'tel', size: 5 });
      const phone = field('New phone number', {
        type: 'tel',
        required: true,
        hint: 'The number the customer can receive codes on now. Check who they are by your company’s process first.',
      });
      confirmAction(staff, {
        title: 'Start recovery',
        effect: `Starts moving ${name} to a new number. Another admin must approve it; after the hold the customer completes it with a code sent to the new number.`,
        fields: [dialCode.row, phone.row],
        act: async (reason) => {
          await staff.client.admin.startRecovery({
            user_id: userId,
            dial_code: dialCode.input.value.trim(),
            phone_number: phone.input.value.trim(),
            reason,
          });
          return 'Recovery started: it awaits another admin’s approval.';
        },
        done: again,
      });
    });
  }
  if (staff.role === 'admin' && user.phone_number === undefined) {
    action('Show phone and email', () => void again(undefined, true));
  }
  return buttons;
}

function devicesSection(staff: Staff, { user, devices }: View, again: Again): HTMLElement {
  const rows = devices.map((device) => [
    device.device_id ?? '—',
    device.device_unique_id ?? '—',
    when(device.created_date),
    when(device.last_used_date),
    h(
      'button',
      {
        type: 'button',
        onclick: () =>
          confirmAction(staff, {
            title: 'Remove device',
            effect: `The device ${device.device_id ?? device.device_key} is no longer trusted: its PIN sign-in stops and its sessions end.`,
            act: async (reason) => {
              const done = await staff.client.admin.removeDevice({ user_id: user.user_id, device_key: device.device_key, reason });
              return `Device removed; ${sessions(done.revoked)} ended.`;
            },
            done: again,
          }),
      },
      'Remove device',
    ),
  ]);
  return h(
    'section',
    { 'aria-labelledby': 'devices-title' },
    h('h3', { id: 'devices-title' }, 'Devices'),
    devices.length
      ? table('Trusted devices, most recently used first', ['Device', 'Unique id', 'Bound', 'Last used', ''], rows)
      : h('p', null, 'No trusted device.'),
  );
}

function sessionsSection(staff: Staff, { user, sessions }: View, again: Again): HTMLElement {
  const rows = sessions.map((session) => [
    session.sid ? h('code', null, session.sid.slice(0, 8)) : '—',
    session.began ?? '—',
    when(session.created_date),
    when(session.last_used_date),
    when(session.expires_date),
    session.sid
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () =>
              confirmAction(staff, {
                title: 'End this session',
                effect: `The session ${session.sid?.slice(0, 8)} (began ${when(session.created_date)}) ends at once; the others stay.`,
                act: async (reason) => {
                  await staff.client.admin.endSessions({ user_id: user.user_id, sid: session.sid ?? undefined, reason });
                  return 'Session ended.';
                },
                done: again,
              }),
          },
          'End this session',
        )
      : '',
  ]);
  return h(
    'section',
    { 'aria-labelledby': 'sessions-title' },
    h('h3', { id: 'sessions-title' }, 'Sessions'),
    sessions.length
      ? table('Live sessions, newest first', ['Session', 'Began by', 'Began', 'Last used', 'Expires', ''], rows)
      : h('p', null, 'No live session.'),
  );
}

function pinsSection({ pins }: View): HTMLElement {
  const standing = (pin: View['pins']['login']) =>
    !pin.set ? 'not set' : pin.locked ? 'locked (an OTP sign-in or a reset opens it)' : `open, ${pin.attempts_left} tries left`;
  return h(
    'section',
    { 'aria-labelledby': 'pins-title' },
    h('h3', { id: 'pins-title' }, 'PINs'),
    facts([
      ['Login PIN', standing(pins.login)],
      ['Transaction PIN', standing(pins.transaction)],
    ]),
  );
}

function phoneChangeSection(staff: Staff, { user, pending_phone_change: change }: View, again: Again): HTMLElement {
  const body: (HTMLElement | string)[] = [];
  if (!change) body.push(h('p', null, 'No phone change under way.'));
  else {
    body.push(
      facts([
        ['New number', maskedPhone(change.phone_last4)],
        ['Asked by', change.via === 'support' ? 'support (a recovery)' : 'the user'],
        ['Awaiting approval', yesNo(change.awaiting_approval)],
        ['Started by', change.started_by ? h('code', null, change.started_by) : '—'],
        [change.awaiting_approval ? 'Approve by' : 'Completes from', when(change.effective_at)],
      ]),
      h('div', { class: 'buttons' }, ...changeActions(staff, user, change, again)),
    );
  }
  return h('section', { 'aria-labelledby': 'change-title' }, h('h3', { id: 'change-title' }, 'Pending phone change'), ...body);
}

function changeActions(staff: Staff, user: View['user'], change: PendingChange, again: Again): HTMLElement[] {
  const buttons: HTMLElement[] = [];
  const name = `${user.first_name} ${user.last_name}`;
  if (change.awaiting_approval && staff.role === 'admin') {
    if (change.started_by === staff.userId) {
      buttons.push(h('p', { class: 'hint' }, 'You started this recovery: another admin must approve it.'));
    } else {
      buttons.push(
        h(
          'button',
          {
            type: 'button',
            onclick: () =>
              confirmAction(staff, {
                title: 'Approve recovery',
                effect: `The move of ${name} to the number ending ${change.phone_last4} starts its hold: the old number is warned, the customer's app can still cancel, and a code to the new number completes it.`,
                act: async (reason) => {
                  const done = await staff.client.admin.approveRecovery({ user_id: user.user_id, change_id: change.change_id, reason });
                  return `Recovery approved: it can complete from ${when(done.effective_at)}.`;
                },
                done: again,
              }),
          },
          'Approve recovery',
        ),
      );
    }
  }
  const cancelName = change.via === 'support' ? 'Cancel recovery' : 'Cancel phone change';
  buttons.push(
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () =>
          confirmAction(staff, {
            title: cancelName,
            effect: `The move of ${name} to the number ending ${change.phone_last4} stops; the customer is told in the app.`,
            act: async (reason) => {
              await staff.client.admin.cancelRecovery({ user_id: user.user_id, change_id: change.change_id, reason });
              return 'The phone change is cancelled.';
            },
            done: again,
          }),
      },
      cancelName,
    ),
  );
  return buttons;
}

/** What each kind of held change is, in the words support reads to a customer (contract 3.15). */
const HELD_CHANGE_NAMES: Record<string, string> = {
  login_pin: 'New login PIN',
  transaction_pin: 'New transaction PIN',
  device_remove: 'Removal of a trusted device',
  delete: 'Deletion of the account',
  profile: 'Change of name, email or birth date',
  export: 'Copy of the account’s data',
};

/**
 * The changes other than the phone's that wait because an SMS code alone asked for them (contract
 * 3.15): what each is, when it takes effect, and a cancel with a reason, as a customer who calls
 * about a SIM swap needs.
 */
function heldChangesSection(staff: Staff, { user, pending_changes: changes }: View, again: Again): HTMLElement | null {
  const held = changes.filter((change) => change.kind !== 'phone');
  if (!held.length) return null;
  const name = `${user.first_name} ${user.last_name}`;
  const rows = held.map((change) => {
    const what = HELD_CHANGE_NAMES[change.kind] ?? change.kind;
    return [
      what,
      change.via === 'support' ? 'support' : 'the user (an SMS-strength session)',
      when(change.effective_at),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () =>
            confirmAction(staff, {
              title: `Cancel: ${what}`,
              effect: `${what} for ${name} will not take effect; the customer is told in the app.`,
              act: async (reason) => {
                await staff.client.admin.cancelRecovery({ user_id: user.user_id, change_id: change.change_id, reason });
                return 'The change is cancelled.';
              },
              done: again,
            }),
        },
        `Cancel: ${what}`,
      ),
    ];
  });
  return h(
    'section',
    { 'aria-labelledby': 'held-title' },
    h('h3', { id: 'held-title' }, 'Changes that wait'),
    h(
      'p',
      { class: 'hint' },
      'Asked for from a session an SMS code alone could open: each waits a day, and the customer or support can stop it.',
    ),
    table('Soonest first', ['Change', 'Asked by', 'Takes effect', ''], rows),
  );
}

function deletionSection(staff: Staff, { user, deletion }: View, again: Again): HTMLElement | null {
  if (!deletion && user.status_id !== STATUS.deleting) return null;
  return h(
    'section',
    { 'aria-labelledby': 'deletion-title' },
    h('h3', { id: 'deletion-title' }, 'Deletion'),
    h(
      'p',
      null,
      deletion
        ? `The user asked to delete the account: it is erased after ${when(deletion.erase_after)} unless restored.`
        : 'Deletion requested.',
    ),
    h(
      'button',
      {
        type: 'button',
        onclick: () =>
          confirmAction(staff, {
            title: 'Restore',
            effect: `${user.first_name} ${user.last_name}'s account is active again with its phone and email, unless someone registered them since. Sessions and devices stay ended.`,
            act: async (reason) => {
              await staff.client.admin.restore({ user_id: user.user_id, reason });
              return 'Restored.';
            },
            done: again,
          }),
      },
      'Restore',
    ),
  );
}

function eventsSection({ security_events: events }: View): HTMLElement {
  const rows = events.map((event) => [when(event.created_date), event.notification_title, String(event.notification_event_type)]);
  return h(
    'section',
    { 'aria-labelledby': 'events-title' },
    h('h3', { id: 'events-title' }, 'Security events'),
    events.length ? table('The latest 20, newest first', ['When', 'What', 'Event'], rows) : h('p', null, 'None.'),
  );
}

function staffActionsSection({ staff_actions: actions }: View, me: string): HTMLElement {
  const rows = actions.map((action) => [
    when(action.date),
    action.action,
    [h('code', null, action.actor_id), action.actor_id === me ? ' (you)' : ''],
  ]);
  return h(
    'section',
    { 'aria-labelledby': 'staff-actions-title' },
    h('h3', { id: 'staff-actions-title' }, 'Staff actions on this user'),
    actions.length
      ? table('The latest 50, newest first (the reason stays in the record)', ['When', 'Action', 'By'], rows)
      : h('p', null, 'None.'),
  );
}
