import { browserPasskeys, callOperation, type OperationData, type WalletAuthClient } from '../../client/src/index.js';
import { confirmAction } from './confirm.js';
import { announcer, field, h, onSubmit, show, table } from './dom.js';
import { when, yesNo } from './format.js';
import { failureText } from './messages.js';
import { reasonField } from './reason-field.js';
import type { Staff } from './staff.js';

// Your passkeys (API contract 3.16): the signed-in employee's own passkeys, listed (never their
// keys), one added from a fresh strong session by this browser's WebAuthn (navigator.credentials:
// the platform's authenticator or a security key), one removed, each with a reason the staff record
// keeps (lib/passkeys/employee-passkey-record.ts). A passkey signs in with no SMS,
// and only on the company's own pages (its webauthn rp_id and origins): a look-alike page gets nothing.

type Listed = OperationData<'passkeys'>['passkeys'][number];

/** The client's transport for the two passkey operations it has no helper of its own for. */
const transportOf = (client: WalletAuthClient) => ({ request: client.request }) as unknown as Parameters<typeof callOperation>[0];

export function passkeysSection(staff: Staff): HTMLElement {
  const list = h('div', { class: 'passkeys' });
  const outcome = announcer('status');
  const errors = announcer('alert');

  const load = async (said?: string) => {
    errors.clear();
    if (said) outcome.say(said);
    show(list, h('p', { role: 'status' }, 'Loading your passkeys…'));
    try {
      const { passkeys } = await callOperation(transportOf(staff.client), 'passkeys');
      show(list, passkeysTable(staff, passkeys, load));
    } catch (error) {
      show(list);
      errors.say(failureText(error));
    }
  };

  const name = field('Passkey name', {
    maxlength: 64,
    autocomplete: 'off',
    hint: 'Which device or key holds it, such as "Desk laptop" or "Blue security key".',
  });
  const reason = reasonField(staff, 'Why you add it, such as a ticket number: kept in the staff record, where other admins read it.');
  const addForm = h(
    'form',
    { 'aria-labelledby': 'add-passkey-title' },
    name.row,
    reason.row,
    h('button', { type: 'submit' }, 'Add a passkey'),
  );
  onSubmit(addForm, async () => {
    errors.clear();
    const why = reason.given(errors);
    if (!why) return;
    try {
      const given = name.input.value.trim();
      await staff.client.auth.registerPasskey(browserPasskeys(), { name: given || undefined, reason: why });
      staff.reason = why;
      name.input.value = '';
      await load(`Passkey ${given ? `“${given}” ` : ''}added: next time, sign in with it.`);
    } catch (error) {
      errors.say(failureText(error));
    }
  });

  void load();
  return h(
    'section',
    { 'aria-labelledby': 'passkeys-title' },
    h('h2', { id: 'passkeys-title', tabindex: '-1' }, 'Your passkeys'),
    h(
      'p',
      null,
      'A passkey signs you in to this console with no SMS code: your device asks for your fingerprint, face or screen lock. It works only on your company’s own console, so a look-alike page cannot use it. Adding or removing one needs a sign-in from the last few minutes.',
    ),
    outcome.region,
    errors.region,
    list,
    h('h3', { id: 'add-passkey-title' }, 'Add a passkey'),
    addForm,
  );
}

function passkeysTable(staff: Staff, passkeys: Listed[], load: (said?: string) => Promise<void>): HTMLElement {
  if (passkeys.length === 0) return h('p', null, 'You have no passkey yet.');
  return table(
    'Your passkeys',
    ['Name', 'Added', 'Last used', 'Synced', ''],
    passkeys.map((passkey) => [
      passkey.name,
      when(passkey.created_date),
      passkey.last_used_date === null ? 'never' : when(passkey.last_used_date),
      yesNo(passkey.backed_up),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'aria-label': `Remove passkey ${passkey.name}`,
          onclick: () =>
            confirmAction(staff, {
              title: 'Remove passkey',
              effect: `The passkey “${passkey.name}” no longer signs you in, and every session it began ends (this one too, if you signed in with it).`,
              act: async (reason) => {
                const done = await callOperation(transportOf(staff.client), 'passkeysRemove', { passkey_id: passkey.passkey_id, reason });
                return `Passkey removed; ${done.revoked} session${done.revoked === 1 ? '' : 's'} it began ended.`;
              },
              done: (text) => void load(text),
            }),
        },
        'Remove',
      ),
    ]),
  );
}
