import { type RegistrationResponseJSON, verifyRegistrationResponse } from '@simplewebauthn/server';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import type { App } from '../app-context.js';
import type { Company } from '../companies/companies.js';
import type { RequestOrigin } from '../observability/audit.js';
import { getChallenge } from '../store/passkey-store.js';
import { SUPPORTED_ALGORITHMS } from './passkey-options.js';
import type { PasskeyRegisterInput } from './passkey-schemas.js';
import { attestationRefused, challengeOf } from './passkey-verification.js';
import { expectedOrigins, requireWebauthn } from './webauthn-settings.js';

// A registration verified by @simplewebauthn/server (API contract 3.16). The service asks for no
// attestation (passkey-options.ts: `attestation: 'none'`) and trusts no authenticator's maker, so a
// statement an authenticator sends anyway (a security key's packed or fido-u2f, a TPM's) is dropped
// unread before the library sees it, as a browser does for "none" (WebAuthn 5.1.3, step 22): what
// is kept (the credential's key, its id, the flags, the counter) is in authData either way. The
// library's verifiers of those formats, and the X.509 and CMS parsing they take, are then never
// called: the passkey registration's bundle leaves them out (serverless/esbuild-plugins.cjs).

/** The attestation object with its statement dropped: `none`, authData as sent. Undecodable: as sent, for the library to refuse. */
export function withoutAttestationStatement(attestationObject: string): string {
  let decoded: unknown;
  try {
    decoded = isoCBOR.decodeFirst(isoBase64URL.toBuffer(attestationObject));
  } catch {
    return attestationObject;
  }
  if (!(decoded instanceof Map) || decoded.get('fmt') === 'none' || !(decoded.get('authData') instanceof Uint8Array))
    return attestationObject;
  const none = new Map<string, string | Map<string, never> | Uint8Array>([
    ['fmt', 'none'],
    ['attStmt', new Map()],
    ['authData', decoded.get('authData')],
  ]);
  return isoBase64URL.fromBuffer(isoCBOR.encode(none));
}

export interface VerifiedRegistration {
  credentialId: string;
  publicKey: string;
  counter: number;
  backedUp: boolean;
  transports: string[] | undefined;
}

/** The registration challenge the response names (else 400 code 1), and whether it is live and bound to the asking session. */
export async function registrationChallenge(
  app: App,
  companyId: string,
  origin: RequestOrigin,
  asker: { userId: string; sessionId: string; now: number },
  input: PasskeyRegisterInput,
): Promise<{ challenge: string; live: boolean }> {
  const challenge = challengeOf(input.response.clientDataJSON);
  if (!challenge) throw attestationRefused(app, origin, companyId, 'malformed client data', 'response.clientDataJSON');
  const stored = await getChallenge(app.table, companyId, challenge, asker.now);
  const live = stored?.purpose === 'register' && stored.session_id === asker.sessionId && stored.user_id === asker.userId;
  return { challenge, live };
}

/** The 400 code 1 of a registration whose challenge is not live for the asking session. */
export const challengeNotLive = (app: App, origin: RequestOrigin, companyId: string) =>
  attestationRefused(app, origin, companyId, 'unknown or expired challenge', 'response.clientDataJSON');

/** A registration's response verified against its live challenge (registrationChallenge), else 400 code 1. */
export async function verifiedRegistration(
  app: App,
  company: Company,
  origin: RequestOrigin,
  challenge: string,
  input: PasskeyRegisterInput,
): Promise<VerifiedRegistration> {
  const settings = requireWebauthn(company);
  const companyId = company.company_id;
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    const response = { ...input.response, attestationObject: withoutAttestationStatement(input.response.attestationObject) };
    verified = await verifyRegistrationResponse({
      response: { ...input, response } as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: expectedOrigins(settings),
      expectedRPID: settings.rp_id,
      requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch (error) {
    throw attestationRefused(app, origin, companyId, (error as Error).message.slice(0, 200));
  }
  if (!verified.verified || !verified.registrationInfo) throw attestationRefused(app, origin, companyId, 'not verified');
  const { credential, credentialBackedUp } = verified.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
    backedUp: credentialBackedUp,
    transports: input.response.transports,
  };
}
