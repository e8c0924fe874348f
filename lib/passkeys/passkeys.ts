import type { App } from '../app-context.js';
import { AppError } from '../errors.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit } from '../observability/audit.js';
import { requireFreshStrong } from '../sessions/session-strength.js';
import { getPasskey, passkeyRemoveWrites, queryPasskeySessions } from '../store/passkey-store.js';
import { endSessions } from '../store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { auditEmployeePasskey, employeePasskeyRecord } from './employee-passkey-record.js';
import { listedPasskeys } from './passkey-list.js';
import type { PasskeyOwnCall, PasskeyRemoveInput, PasskeyRemoveResult, PasskeysResult } from './passkey-schemas.js';
import { requireWebauthn } from './webauthn-settings.js';

// A user's passkeys (API contract 3.16) listed and removed, with the sessions each began. No
// WebAuthn library here: registration is passkey-registration.ts, the login's options
// passkey-login-options.ts and the login passkey-login.ts.

/** GET /wallet/v3/auth/passkeys. */
export async function passkeys(app: App, { principal }: PasskeyOwnCall<unknown>): Promise<PasskeysResult> {
  return { passkeys: await listedPasskeys(app, principal.companyId, principal.userId) };
}

/**
 * Removes one passkey: its items, its claim, the count and notice 14 in one transaction; then every
 * session it began ends (a login racing the removal either lost its passkey write, or is found here).
 * Answers how many sessions ended; NOT_FOUND when there is no such passkey.
 */
export async function removePasskey(
  app: App,
  companyId: string,
  userId: string,
  passkeyId: string,
  also: { label: string; item: NonNullable<Parameters<typeof writeTransaction>[1][number]['item']> }[] = [],
  /** The unread count's shard of notice 14, when `also` holds another notice (distinctUnreadShards). */
  unreadShard?: number,
): Promise<number> {
  const passkey = await getPasskey(app.table, companyId, userId, passkeyId);
  if (!passkey) return noSuchPasskey(app, companyId, userId, passkeyId);
  try {
    await writeTransaction(app.table, [
      ...passkeyRemoveWrites(app.table, companyId, passkey).map((item) => ({ label: 'passkey', item })),
      ...securityNotificationWrites(app.table, companyId, userId, {
        event: SecurityEvent.PASSKEY_REMOVED,
        nowMs: app.clock.now(),
        unreadShard,
      }).map((item) => ({ label: 'notice', item })),
      ...also,
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.labels.includes('passkey')) return noSuchPasskey(app, companyId, userId, passkeyId);
    throw error;
  }
  return endPasskeySessions(app, companyId, userId, passkeyId);
}

/**
 * 404 code 6, once no session the passkey began is left: a removal whose transaction landed but
 * whose sessions were not ended yet (its answer a 503, say) is finished by its retry, which finds
 * no passkey. For an id that never was a passkey of the user, there are none to end.
 */
async function noSuchPasskey(app: Pick<App, 'table' | 'clock'>, companyId: string, userId: string, passkeyId: string): Promise<never> {
  await endPasskeySessions(app, companyId, userId, passkeyId);
  throw new AppError('NOT_FOUND', { detail: 'no such passkey' });
}

/** Ends every session a removed passkey began (API contract 3.15, second reading); answers how many. */
export async function endPasskeySessions(
  app: Pick<App, 'table' | 'clock'>,
  companyId: string,
  userId: string,
  passkeyId: string,
): Promise<number> {
  const sessions = await queryPasskeySessions(app.table, companyId, userId, passkeyId);
  if (sessions.length) await endSessions(app.table, sessions, { reason: 'passkey_removed', atMs: app.clock.now() });
  return sessions.length;
}

/** POST /wallet/v3/auth/passkeys/remove (fresh strong). */
export async function passkeyRemove(
  app: App,
  { body, company, principal, origin }: PasskeyOwnCall<PasskeyRemoveInput>,
): Promise<PasskeyRemoveResult> {
  requireWebauthn(company);
  requireFreshStrong(app, principal, 'removing a passkey');
  const staffRecord = await employeePasskeyRecord(app, principal, {
    action: 'self_passkey_remove',
    passkeyId: body.passkey_id,
    reason: body.reason,
  });
  const revoked = await removePasskey(app, principal.companyId, principal.userId, body.passkey_id, staffRecord?.writes);
  audit(app, origin, 'passkey_removed', { company_id: principal.companyId, user_id: principal.userId, outcome: 'removed' });
  auditEmployeePasskey(app, origin, staffRecord);
  return { message: 'Passkey removed', revoked };
}
