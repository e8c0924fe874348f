import type { App } from '../app-context.js';
import { fieldError } from '../errors.js';
import { verifyPin } from '../secrets/hashing.js';
import { PIN_HASH_ATTRIBUTE, type PinType } from '../store/pin-store.js';
import type { UserRecord } from '../store/user-store.js';

// The transaction PIN is not the login PIN (API contract 3.15, second reading): whoever watches a
// login must not learn what approves a payment. Refused at registration, change and reset (400 code 1).

const OTHER: Record<PinType, PinType> = { login: 'transaction', transaction: 'login' };

export const samePins = (field: string) =>
  fieldError('BAD_REQUEST', field, 'must differ from the other PIN: the transaction PIN is not the login PIN');

/** Refuses a new PIN equal to the user's other PIN (one hash compared, as a PIN check compares one). */
export async function requirePinsDiffer(
  app: Pick<App, 'keys'>,
  user: UserRecord,
  pinType: PinType,
  newPin: string,
  field = 'new_pin',
): Promise<void> {
  const other = user[PIN_HASH_ATTRIBUTE[OTHER[pinType]]];
  if (other && (await verifyPin(app.keys, newPin, other))) throw samePins(field);
}
