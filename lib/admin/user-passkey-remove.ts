import * as z from 'zod/mini';
import type { App } from '../app-context.js';
import type { Call, Principal } from '../call.js';
import { HEX_ID_PATTERN } from '../ids.js';
import { removePasskey } from '../passkeys/passkeys.js';
import { auditStaffAction } from '../staff/staff-actions.js';
import { distinctUnreadShards } from '../store/notification-store.js';
import { actionFields, beginActionOnUser } from './action-target.js';

// POST /wallet/v3/admin/users/passkeys/remove (API contract 3.15's second reading, 3.16): support or
// an admin removes one of a user's passkeys (a phone stolen unlocked) with a reason, as the user's own
// passkeys/remove does: the passkey, its claim, notice 14, with the record of the action (and its
// notice 8) in one transaction; then every session the passkey began ends. Not that user's: 404 code 6.

export const userPasskeyRemoveBody = z.lazy(() =>
  z.object({ ...actionFields(), passkey_id: z.string().check(z.regex(HEX_ID_PATTERN, 'must be a passkey_id (32 hex characters)')) }),
);

export const userPasskeyRemoveResult = z.lazy(() =>
  z.object({ message: z.string(), revoked: z.int().check(z.meta({ description: 'Sessions the passkey had begun, ended with it' })) }),
);

export type UserPasskeyRemoveCall = Call<z.output<typeof userPasskeyRemoveBody>, Record<string, never>, Principal>;

export async function userPasskeyRemove(app: App, call: UserPasskeyRemoveCall): Promise<z.output<typeof userPasskeyRemoveResult>> {
  // Notices 8 and 14 in one transaction: each on its own shard of the unread count.
  const [staffShard, removedShard] = distinctUnreadShards(2);
  const { companyId, userId, record, recorded } = await beginActionOnUser(app, call, 'passkey_remove', undefined, undefined, staffShard);
  const revoked = await removePasskey(app, companyId, userId, call.body.passkey_id, recorded, removedShard);
  auditStaffAction(app, call.origin, record, 'removed');
  return { message: 'Passkey removed', revoked };
}
