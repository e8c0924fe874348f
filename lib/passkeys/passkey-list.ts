import type { App } from '../app-context.js';
import { type PasskeyRecord, queryPasskeys } from '../store/passkey-store.js';

// How a passkey is listed (API contract 3.16): by the user, in the export and in the back office's
// view, and never with its public key or credential id.

/** A passkey as the lists show it: never its key or credential id. */
export function listedPasskeyOf(passkey: PasskeyRecord) {
  return {
    passkey_id: passkey.passkey_id,
    name: passkey.name,
    created_date: passkey.created_at,
    last_used_date: passkey.last_used_at ?? null,
    backed_up: passkey.backed_up,
  };
}

/** A user's passkeys as listed, newest first. */
export async function listedPasskeys(app: Pick<App, 'table'>, companyId: string, userId: string) {
  const passkeys = await queryPasskeys(app.table, companyId, userId);
  return passkeys.sort((a, b) => b.created_at - a.created_at).map(listedPasskeyOf);
}
