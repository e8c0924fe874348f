import { createHmac, randomBytes } from 'node:crypto';
import type { App } from '../app-context.js';

// What the two ceremonies begin with (API contract 3.16, WebAuthn Level 3 section 5.4 and 5.5): the
// options as their JSON (PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON),
// a challenge, a user's handle and the decoy ids of a phone with no passkey. Plain JSON with no
// WebAuthn library: the options functions stay small; what a response carries (CBOR, COSE, the
// attestation, the signature) is verified by @simplewebauthn/server only (passkey-verification.ts).

/** How long a challenge lives (API contract 3.16). */
export const CHALLENGE_SECONDS = 300;
/** COSE ES256 and RS256 (API contract 3.16). */
export const SUPPORTED_ALGORITHMS = [-7, -257];

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** A new challenge: 32 random bytes, base64url (43 characters). */
export const newChallenge = () => base64url(randomBytes(32));

/** A credential the options name: to exclude from a registration, or to allow at a login. */
export interface NamedCredential {
  id: string;
  transports?: string[] | undefined;
}

const descriptor = ({ id, transports }: NamedCredential) => ({
  id,
  type: 'public-key' as const,
  ...(transports?.length ? { transports } : {}),
});

/** navigator.credentials.create's options: user verification required, a resident key preferred, no attestation. */
export function creationOptions(options: {
  rp: { id: string; name: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  exclude: NamedCredential[];
}) {
  return {
    challenge: options.challenge,
    rp: options.rp,
    user: options.user,
    pubKeyCredParams: SUPPORTED_ALGORITHMS.map((alg) => ({ alg, type: 'public-key' as const })),
    timeout: CHALLENGE_SECONDS * 1000,
    attestation: 'none' as const,
    excludeCredentials: options.exclude.map(descriptor),
    authenticatorSelection: { residentKey: 'preferred' as const, userVerification: 'required' as const, requireResidentKey: false },
    // The platform says whether it made a discoverable credential (credProps).
    extensions: { credProps: true },
  };
}

/** navigator.credentials.get's options: user verification required; with a phone typed, the credentials to allow. */
export function requestOptions(options: { rpId: string; challenge: string; allow?: NamedCredential[] | undefined }) {
  return {
    rpId: options.rpId,
    challenge: options.challenge,
    ...(options.allow ? { allowCredentials: options.allow.map(descriptor) } : {}),
    timeout: CHALLENGE_SECONDS * 1000,
    userVerification: 'required' as const,
  };
}

/** The user handle of a user in a company: an HMAC, the same for every passkey of theirs, that names nobody elsewhere. */
export async function userHandleOf(app: Pick<App, 'keys'>, companyId: string, userId: string): Promise<string> {
  const { key } = await app.keys.current('passkey');
  return base64url(createHmac('sha256', key).update(`user-handle\n${companyId}\n${userId}`).digest());
}

/** Credential ids for a phone with no passkey: derived by HMAC, so the answer is the same for the same phone each time. */
export async function decoyCredentialIds(
  app: Pick<App, 'keys'>,
  companyId: string,
  phoneE164: string,
  userType: number,
): Promise<string[]> {
  const { key } = await app.keys.current('passkey');
  const digest = createHmac('sha256', key).update(`decoy\n${companyId}\n${phoneE164}\n${userType}`).digest();
  const count = 1 + (digest[0]! % 2);
  return Array.from({ length: count }, (_, index) =>
    base64url(createHmac('sha256', key).update(`decoy-id\n${index}\n`).update(digest).digest()),
  );
}
