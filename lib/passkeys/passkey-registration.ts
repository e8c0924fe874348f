import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit } from '../observability/audit.js';
import { requireFreshStrong } from '../sessions/session-strength.js';
import { challengeTake, getPasskey, getPasskeyClaim, PASSKEYS_MAX, type PasskeyRecord, passkeyAddWrites } from '../store/passkey-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { auditEmployeePasskey, employeePasskeyRecord } from './employee-passkey-record.js';
import { challengeNotLive, registrationChallenge, verifiedRegistration } from './passkey-attestation.js';
import { CHALLENGE_SECONDS } from './passkey-options.js';
import type { PasskeyOwnCall, PasskeyRegisterInput, PasskeyRegisterResult } from './passkey-schemas.js';
import { requireWebauthn } from './webauthn-settings.js';

// A passkey registered (API contract 3.16) from a fresh strong session: the attestation verified by
// @simplewebauthn/server against the challenge its options bound to the session's sid
// (passkey-register-options.ts, passkey-attestation.ts), and the passkey stored.

/** 409 code 22: the user holds PASSKEYS_MAX passkeys already. */
const tooMany = () => new AppError('DEVICE_LIMIT', { detail: `at most ${PASSKEYS_MAX} passkeys: remove one first` });

/**
 * The passkey a first run of this registration added: the response's credential, claimed by this
 * user within the challenge's life. A retry cannot tell its own first run from an earlier
 * registration of the same credential by the same user in those minutes, and need not: the answer
 * is the same passkey, and nothing is written again.
 */
async function addedByFirstRun(
  app: App,
  companyId: string,
  userId: string,
  credentialId: string,
  now: number,
): Promise<string | undefined> {
  const claim = await getPasskeyClaim(app.table, companyId, credentialId);
  if (claim?.user_id !== userId) return undefined;
  const passkey = await getPasskey(app.table, companyId, userId, claim.passkey_id);
  return passkey && passkey.created_at > now - CHALLENGE_SECONDS ? passkey.passkey_id : undefined;
}

/**
 * POST /wallet/v3/auth/passkeys/register: the attestation verified against this session's challenge,
 * then in one transaction the challenge taken, the credential id claimed in the company (409 code 7
 * when known), the passkey stored under the user's count (409 code 22 past 10) and notice 13.
 */
export async function passkeyRegister(
  app: App,
  { body, company, principal, origin }: PasskeyOwnCall<PasskeyRegisterInput>,
): Promise<PasskeyRegisterResult> {
  requireWebauthn(company);
  requireFreshStrong(app, principal, 'adding a passkey');
  const { companyId, userId, sessionId } = principal;
  const passkeyId = newId();
  // An employee's reason is asked before the attestation is verified: a refusal spends nothing.
  const staffRecord = await employeePasskeyRecord(app, principal, { action: 'self_passkey_add', passkeyId, reason: body.reason });
  const now = epochSeconds(app.clock);
  const { challenge, live } = await registrationChallenge(app, companyId, origin, { userId, sessionId, now }, body);
  if (!live) {
    // Taken by this registration's first run, whose answer was lost (a 503 while its write still
    // landed): the passkey it added, again. Anything else is refused as before.
    const added = await addedByFirstRun(app, companyId, userId, body.id, now);
    if (added) return { message: 'Passkey added', passkey_id: added };
    throw challengeNotLive(app, origin, companyId);
  }
  const verified = await verifiedRegistration(app, company, origin, challenge, body);
  const passkey: PasskeyRecord = {
    passkey_id: passkeyId,
    user_id: userId,
    credential_id: verified.credentialId,
    public_key: verified.publicKey,
    counter: verified.counter,
    ...(verified.transports?.length ? { transports: verified.transports } : {}),
    backed_up: verified.backedUp ? 1 : 0,
    name: body.name ?? 'Passkey',
    created_at: now,
  };
  const writes = passkeyAddWrites(app.table, companyId, passkey);
  try {
    await writeTransaction(app.table, [
      { label: 'challenge', item: challengeTake(app.table, companyId, challenge, now) },
      { label: 'claim', item: writes.claim },
      { label: 'passkey', item: writes.passkey },
      { label: 'count', item: writes.count },
      ...securityNotificationWrites(app.table, companyId, userId, { event: SecurityEvent.PASSKEY_ADDED, nowMs: app.clock.now() }).map(
        (item) => ({ label: 'notice', item }),
      ),
      ...(staffRecord?.writes ?? []),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.labels.includes('challenge')) throw new AppError('BAD_REQUEST', { detail: 'the challenge was used meanwhile' });
    if (error.labels.includes('claim')) throw new AppError('ALREADY_REGISTERED', { detail: 'this credential is already registered' });
    if (error.labels.includes('count')) throw tooMany();
    throw error;
  }
  audit(app, origin, 'passkey_added', { company_id: companyId, user_id: userId, outcome: 'added' });
  auditEmployeePasskey(app, origin, staffRecord);
  return { message: 'Passkey added', passkey_id: passkey.passkey_id };
}
