import { type announcer, field } from './dom.js';
import type { Staff } from './staff.js';

// The Reason every back-office call carries (API contract 3.14): one field, filled with the
// employee's last reason, that the page refuses to send empty, saying what to give.

export function reasonField(staff: Staff, hint: string, ask = 'the ticket or call number') {
  const { row, input } = field('Reason', { required: true, maxlength: 200, autocomplete: 'off', value: staff.reason, hint });
  /** The reason typed, trimmed; undefined when none, after saying so and focusing the field. */
  const given = (errors: ReturnType<typeof announcer>): string | undefined => {
    const value = input.value.trim();
    if (value) return value;
    errors.say(`Give a reason: ${ask}.`);
    input.focus();
    return undefined;
  };
  return { row, input, given };
}
