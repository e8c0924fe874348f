import { announcer, h, onSubmit } from './dom.js';
import { failureText } from './messages.js';
import { reasonField } from './reason-field.js';
import type { Staff } from './staff.js';

// The confirmation every action passes (API contract 3.14: each action with its reason): a modal
// dialog that says what the action does to whom, asks for the reason, and calls the API only on
// "Confirm". A refusal stays in the dialog, as text; "Back" leaves without acting.

export interface ConfirmOptions {
  /** The action's name, the dialog's title. */
  title: string;
  /** What it does, in a sentence the agent can read out. */
  effect: string;
  /** More fields the action takes (a new number ...), shown above the reason. */
  fields?: HTMLElement[];
  /** Calls the API with the reason; answers the outcome to announce. */
  act: (reason: string) => Promise<string>;
  /** After a success, with its outcome. */
  done: (outcome: string) => void;
}

export function confirmAction(staff: Staff, options: ConfirmOptions): void {
  const errors = announcer('alert');
  const reason = reasonField(staff, 'The ticket or call number: kept in the record of this action, never shown to the customer.');
  const back = h('button', { type: 'button', class: 'secondary' }, 'Back');
  const form = h(
    'form',
    null,
    h('h2', { id: 'confirm-title' }, options.title),
    h('p', { id: 'confirm-effect' }, options.effect),
    ...(options.fields ?? []),
    reason.row,
    errors.region,
    h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Confirm'), back),
  );
  const dialog = h('dialog', { 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-effect' }, form);
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  back.addEventListener('click', close);
  dialog.addEventListener('cancel', () => dialog.remove());
  onSubmit(form, async () => {
    errors.clear();
    const given = reason.given(errors);
    if (!given) return;
    try {
      const outcome = await options.act(given);
      staff.reason = given;
      close();
      options.done(outcome);
    } catch (error) {
      errors.say(failureText(error));
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  (options.fields?.[0]?.querySelector('input') ?? reason.input).focus();
}
