// How the page writes the API's values: dates in the agent's own time zone, statuses by name.

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** UNIX seconds as a date and time; '—' when absent. */
export function when(seconds: number | null | undefined): string {
  return typeof seconds === 'number' ? dateFormat.format(new Date(seconds * 1000)) : '—';
}

/** status_id (API contract 6). */
export const STATUS_NAMES: Record<number, string> = {
  1: 'active',
  2: 'disabled',
  3: 'phone reclaimed by its verified owner',
  4: 'deletion requested',
  5: 'erased',
};

export const statusName = (status: number) => STATUS_NAMES[status] ?? `status ${status}`;

export const userTypeName = (type: number) => (type === 1 ? 'employee' : type === 2 ? 'customer' : `type ${type}`);

export const yesNo = (flag: number | boolean | null | undefined) => (flag ? 'yes' : 'no');

/** A masked phone as the API gives it: its last 4 digits. */
export const maskedPhone = (last4: string) => `•••• ${last4}`;

/** Seconds as the wait they are: "45 s", "12 min", "3 h". */
export function wait(seconds: number): string {
  if (seconds < 120) return `${Math.ceil(seconds)} s`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.ceil(seconds / 3600)} h`;
}
