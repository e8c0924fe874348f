import { generateAuthenticationOptions, generateRegistrationOptions } from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { SecurityEvent, securityNotificationWrites } from '../notifications/security-notifications.js';
import { audit } from '../observability/audit.js';
import { requireFreshStrong } from '../sessions/session-strength.js';
import {
  challengePut,
  challengeTake,
  getPasskey,
  PASSKEYS_MAX,
  type PasskeyRecord,
  passkeyAddWrites,
  passkeyRemoveWrites,
  queryPasskeySessions,
  queryPasskeys,
} from '../store/passkey-store.js';
import { endSessions } from '../store/session-store.js';
import { ConditionsFailed, writeTransaction } from '../store/transactions.js';
import { UserStatus } from '../store/user-status.js';
import { getPhoneClaim, getUser } from '../store/user-store.js';
import { phonePlan } from '../users/phone-number.js';
import { UserType } from '../users/user-types.js';
import { listedPasskeys } from './passkey-list.js';
import type {
  PasskeyLoginOptionsInput,
  PasskeyLoginOptionsResult,
  PasskeyOwnCall,
  PasskeyPublicCall,
  PasskeyRegisterInput,
  PasskeyRegisterOptionsResult,
  PasskeyRegisterResult,
  PasskeyRemoveInput,
  PasskeyRemoveResult,
  PasskeysResult,
} from './passkey-schemas.js';
import {
  CHALLENGE_SECONDS,
  decoyCredentialIds,
  newChallenge,
  SUPPORTED_ALGORITHMS,
  userHandleOf,
  verifiedRegistration,
} from './passkey-verification.js';
import { requireWebauthn } from './webauthn-settings.js';

// Passkeys of API contract 3.16: registered from a fresh strong session (the challenge bound to its
// sid), listed, removed (with the sessions they began), and the login options. The login itself:
// passkey-login.ts.

/** POST /wallet/v3/auth/passkeys/register/options: the creation options, and their challenge stored for this session. */
export async function passkeyRegisterOptions(
  app: App,
  { company, principal }: PasskeyOwnCall<unknown>,
): Promise<PasskeyRegisterOptionsResult> {
  const settings = requireWebauthn(company);
  requireFreshStrong(app, principal, 'adding a passkey');
  const { companyId, userId, sessionId } = principal;
  const [user, passkeys] = await Promise.all([getUser(app.table, companyId, userId, true), queryPasskeys(app.table, companyId, userId)]);
  if (user?.status_id !== UserStatus.ACTIVE) throw new AppError('UNAUTHORIZED', { detail: 'the user is not active' });
  if (passkeys.length >= PASSKEYS_MAX) throw tooMany();
  const options = await generateRegistrationOptions({
    rpName: company.name,
    rpID: settings.rp_id,
    userID: isoBase64URL.toBuffer(await userHandleOf(app, companyId, userId)),
    // What the platform shows beside the passkey: the number's last digits, never the whole number.
    userName: `${company.name} ••${user.phone_e164.slice(-4)}`,
    userDisplayName: user.first_name || company.name,
    challenge: newChallenge(),
    timeout: CHALLENGE_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: passkeys.map((passkey) => ({
      id: passkey.credential_id,
      ...(passkey.transports ? { transports: passkey.transports as never } : {}),
    })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });
  const now = epochSeconds(app.clock);
  await writeTransaction(app.table, [
    {
      label: 'challenge',
      item: challengePut(app.table, companyId, options.challenge, {
        purpose: 'register',
        session_id: sessionId,
        user_id: userId,
        expires_at: now + CHALLENGE_SECONDS,
      }),
    },
  ]);
  return { message: 'Create the passkey with these options, then send its response to passkeys/register', options: { ...options } };
}

const tooMany = () => new AppError('DEVICE_LIMIT', { detail: `at most ${PASSKEYS_MAX} passkeys: remove one first` });

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
  const now = epochSeconds(app.clock);
  const verified = await verifiedRegistration(app, company, origin, { userId, sessionId, now }, body);
  const passkey: PasskeyRecord = {
    passkey_id: newId(),
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
      { label: 'challenge', item: challengeTake(app.table, companyId, verified.challenge, now) },
      { label: 'claim', item: writes.claim },
      { label: 'passkey', item: writes.passkey },
      { label: 'count', item: writes.count },
      ...securityNotificationWrites(app.table, companyId, userId, { event: SecurityEvent.PASSKEY_ADDED, nowMs: app.clock.now() }).map(
        (item) => ({ label: 'notice', item }),
      ),
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.labels.includes('challenge')) throw new AppError('BAD_REQUEST', { detail: 'the challenge was used meanwhile' });
    if (error.labels.includes('claim')) throw new AppError('ALREADY_REGISTERED', { detail: 'this credential is already registered' });
    if (error.labels.includes('count')) throw tooMany();
    throw error;
  }
  audit(app, origin, 'passkey_added', { company_id: companyId, user_id: userId, outcome: 'added' });
  return { message: 'Passkey added', passkey_id: passkey.passkey_id };
}

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
): Promise<number> {
  const passkey = await getPasskey(app.table, companyId, userId, passkeyId);
  if (!passkey) throw new AppError('NOT_FOUND', { detail: 'no such passkey' });
  try {
    await writeTransaction(app.table, [
      ...passkeyRemoveWrites(app.table, companyId, passkey).map((item) => ({ label: 'passkey', item })),
      ...securityNotificationWrites(app.table, companyId, userId, { event: SecurityEvent.PASSKEY_REMOVED, nowMs: app.clock.now() }).map(
        (item) => ({ label: 'notice', item }),
      ),
      ...also,
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.labels.includes('passkey'))
      throw new AppError('NOT_FOUND', { detail: 'no such passkey' });
    throw error;
  }
  return endPasskeySessions(app, companyId, userId, passkeyId);
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
  const revoked = await removePasskey(app, principal.companyId, principal.userId, body.passkey_id);
  audit(app, origin, 'passkey_removed', { company_id: principal.companyId, user_id: principal.userId, outcome: 'removed' });
  return { message: 'Passkey removed', revoked };
}

/**
 * POST /wallet/v3/auth/passkeys/login/options: a login challenge (single-use, 300 s). With a phone,
 * the credentials to allow: the holder's passkeys, or for a phone with none (no account, or no
 * passkey) ids derived by HMAC from the phone, so every phone answers the same shape.
 */
export async function passkeyLoginOptions(
  app: App,
  { body, company }: PasskeyPublicCall<PasskeyLoginOptionsInput>,
): Promise<PasskeyLoginOptionsResult> {
  const settings = requireWebauthn(company);
  const companyId = company.company_id;
  let allow: { id: string; transports?: never }[] | undefined;
  if (body.dial_code !== undefined && body.phone_number !== undefined) {
    const phoneE164 = (await phonePlan()).toE164(body.dial_code, body.phone_number)!;
    const userType = body.user_type ?? UserType.CUSTOMER;
    const claim = await getPhoneClaim(app.table, companyId, phoneE164, userType);
    const held = claim?.status_id === UserStatus.ACTIVE ? await queryPasskeys(app.table, companyId, claim.user_id) : [];
    allow = held.length
      ? held.map((passkey) => ({ id: passkey.credential_id, ...(passkey.transports ? { transports: passkey.transports as never } : {}) }))
      : (await decoyCredentialIds(app, companyId, phoneE164, userType)).map((id) => ({ id, transports: ['internal', 'hybrid'] as never }));
  }
  const options = await generateAuthenticationOptions({
    rpID: settings.rp_id,
    challenge: newChallenge(),
    timeout: CHALLENGE_SECONDS * 1000,
    userVerification: 'required',
    ...(allow ? { allowCredentials: allow } : {}),
  });
  const now = epochSeconds(app.clock);
  await writeTransaction(app.table, [
    {
      label: 'challenge',
      item: challengePut(app.table, companyId, options.challenge, { purpose: 'login', expires_at: now + CHALLENGE_SECONDS }),
    },
  ]);
  return { message: 'Sign with a passkey, then send the response to passkeys/login', options: { ...options } };
}
