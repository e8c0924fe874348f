import { type AuthenticationResponseJSON, verifyAuthenticationResponse } from '@simplewebauthn/server';
import { decodeClientDataJSON, isoBase64URL } from '@simplewebauthn/server/helpers';
import type { App } from '../app-context.js';
import type { Company } from '../companies/companies.js';
import { AppError, ErrorCodes } from '../errors.js';
import { audit, type RequestOrigin } from '../observability/audit.js';
import { type ChallengeRecord, getChallenge, getPasskey, getPasskeyClaim, type PasskeyRecord } from '../store/passkey-store.js';
import { userHandleOf } from './passkey-options.js';
import type { AssertionInput } from './passkey-schemas.js';
import { expectedOrigins, requireWebauthn, type WebauthnSettings } from './webauthn-settings.js';

// The WebAuthn checks every passkey route shares, all on @simplewebauthn/server (no CBOR, COSE or
// attestation parsed here): the challenge the client data names, read and checked live (taken later,
// in the transaction that commits the ceremony, so that a refusal writes nothing), the origin and
// rp_id of the company's settings, user verification required, and the signature counter.

const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Why an assertion was refused: logged for the operator, never told to the client (401 code 4). */
export type AssertionRefusal =
  | 'malformed'
  | 'unknown_challenge'
  | 'unknown_credential'
  | 'wrong_user_handle'
  | 'verification_failed'
  | 'counter_went_back'
  | 'user_not_active'
  | 'raced';

/** Records an assertion's refusal (audit, with its reason) and answers its 401 code 4, naming no account. */
export function assertionRefused(app: App, origin: RequestOrigin, companyId: string, reason: AssertionRefusal, detail?: string): AppError {
  audit(app, origin, 'passkey_refused', { company_id: companyId, outcome: reason, ...(detail ? { detail: detail.slice(0, 200) } : {}) });
  return new AppError('UNAUTHORIZED', { detail: 'passkey not accepted' });
}

/** 400 code 1 naming a field of a registration's response. */
export function attestationRefused(app: App, origin: RequestOrigin, companyId: string, reason: string, field = 'response'): AppError {
  audit(app, origin, 'passkey_refused', { company_id: companyId, outcome: `register_${reason}` });
  return new AppError('BAD_REQUEST', {
    detail: `passkey not registered: ${reason}`,
    fields: [{ code: ErrorCodes.BAD_REQUEST.code, field, detail: reason }],
  });
}

/** The challenge a response's client data names, if it is of the right form. */
export function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const challenge = decodeClientDataJSON(clientDataJSON).challenge;
    return typeof challenge === 'string' && CHALLENGE_PATTERN.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}

export interface VerifiedAssertion {
  challenge: string;
  passkey: PasskeyRecord;
  newCounter: number;
  settings: WebauthnSettings;
}

/**
 * An assertion verified: its challenge live and for a login, its credential known in this company
 * (a credential of another company is unknown here: every key starts with the company), the user
 * handle the user's, the signature, origin, rp_id and user verification right, and the counter
 * not gone back (0 in both places is accepted: synced passkeys keep none). Any failure: 401 code 4,
 * nothing written but a clone's mark (passkey.cloned).
 */
export async function verifiedAssertion(
  app: App,
  company: Company,
  origin: RequestOrigin,
  input: AssertionInput,
  now: number,
  onCloned: (passkey: PasskeyRecord) => Promise<void>,
): Promise<VerifiedAssertion> {
  const settings = requireWebauthn(company);
  const companyId = company.company_id;
  const refused = (reason: AssertionRefusal, detail?: string) => assertionRefused(app, origin, companyId, reason, detail);
  const challenge = challengeOf(input.response.clientDataJSON);
  if (!challenge) throw refused('malformed');
  const [stored, claim] = await Promise.all([
    getChallenge(app.table, companyId, challenge, now),
    getPasskeyClaim(app.table, companyId, input.id),
  ]);
  if (!isLoginChallenge(stored)) throw refused('unknown_challenge');
  if (!claim) throw refused('unknown_credential');
  const passkey = await getPasskey(app.table, companyId, claim.user_id, claim.passkey_id);
  if (!passkey) throw refused('unknown_credential');
  if (input.response.userHandle !== undefined && input.response.userHandle !== (await userHandleOf(app, companyId, passkey.user_id))) {
    throw refused('wrong_user_handle');
  }
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: input as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: expectedOrigins(settings),
      expectedRPID: settings.rp_id,
      // The counter is compared below, where one that went back is told apart from a bad signature.
      credential: { id: passkey.credential_id, publicKey: isoBase64URL.toBuffer(passkey.public_key), counter: 0 },
      requireUserVerification: true,
    });
  } catch (error) {
    throw refused('verification_failed', (error as Error).message);
  }
  if (!verified.verified) throw refused('verification_failed');
  const { newCounter } = verified.authenticationInfo;
  if ((newCounter !== 0 || passkey.counter !== 0) && newCounter <= passkey.counter) {
    await onCloned(passkey);
    throw refused('counter_went_back', `counter ${newCounter} after ${passkey.counter}`);
  }
  return { challenge, passkey, newCounter, settings };
}

const isLoginChallenge = (stored: ChallengeRecord | undefined) => stored?.purpose === 'login';
