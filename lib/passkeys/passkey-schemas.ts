import * as z from 'zod/mini';
import type { Call, Principal, RequestKey, RequestProof } from '../call.js';
import { HEX_ID_PATTERN } from '../ids.js';
import { staffReason } from '../staff/staff-gate.js';

// The bodies and answers of the passkey routes (API contract 3.16). A ceremony's response is the
// WebAuthn JSON a browser's PublicKeyCredential.toJSON() gives (and React Native modules mirror), its
// binary parts base64url; @simplewebauthn/server parses and verifies them (lib/passkeys/).

const described = <Schema extends z.ZodMiniType>(schema: Schema, description: string) => schema.check(z.meta({ description }));
const base64url = (max: number, description: string) =>
  described(z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[A-Za-z0-9_-]+$/, 'must be base64url')), description);

/** An employee's reason for a change of their own passkeys: required of them (staff record), not sent by a customer. */
const employeeReason = () =>
  described(
    staffReason(),
    'An employee’s reason, such as a ticket number: required of an employee, kept in the staff record; a customer sends none',
  );

/** The fields both ceremonies' responses share. */
const credentialFields = () => ({
  // A credential id is at most 1,023 bytes (WebAuthn L3): 1,364 base64url characters.
  id: base64url(1364, 'The credential id'),
  rawId: base64url(1364, 'The credential id again, as the platform gives it'),
  type: z.literal('public-key', { error: 'must be "public-key"' }),
  clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
});

export const passkeyRegisterBody = z.lazy(() =>
  z.object({
    ...credentialFields(),
    response: z.object({
      clientDataJSON: base64url(4096, 'The client data, as signed'),
      attestationObject: base64url(16384, 'The attestation object (CBOR)'),
      transports: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(8))),
    }),
    name: z.optional(described(z.string().check(z.trim(), z.minLength(1), z.maxLength(64)), 'What the user calls it (default: "Passkey")')),
    reason: z.optional(employeeReason()),
  }),
);

/** An assertion: a passkey login's and a step-up's. */
export const assertionFields = () => ({
  ...credentialFields(),
  response: z.object({
    clientDataJSON: base64url(4096, 'The client data, as signed'),
    authenticatorData: base64url(4096, 'The authenticator data'),
    signature: base64url(1024, 'The signature over the authenticator data and the client data’s hash'),
    userHandle: z.optional(base64url(128, 'The user handle the passkey holds (a discoverable login)')),
  }),
});

export const passkeyLoginBody = z.lazy(() =>
  z.object({
    ...assertionFields(),
    not_me: z.optional(
      described(z.literal(1, { error: 'must be 1' }), '1: run "Not me" (user/security/not_me) in the transaction that begins the session'),
    ),
  }),
);

export const passkeyRemoveBody = z.lazy(() =>
  z.object({
    passkey_id: z.string().check(z.regex(HEX_ID_PATTERN, 'must be a passkey_id (32 hex characters)')),
    reason: z.optional(employeeReason()),
  }),
);

/** WebAuthn options as PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON: given to the platform as they are. */
const optionsResult = (description: string) => described(z.record(z.string(), z.unknown()), description);

export const passkeyRegisterOptionsResult = z.lazy(() =>
  z.object({
    message: z.string(),
    options: optionsResult(
      'PublicKeyCredentialCreationOptionsJSON: rp (id, name), user (id: the user handle, base64url), challenge (single-use, 300 s), ' +
        'pubKeyCredParams ES256 and RS256, authenticatorSelection (residentKey preferred, userVerification required), excludeCredentials',
    ),
  }),
);

export const passkeyRegisterResult = z.lazy(() =>
  z.object({ message: z.string(), passkey_id: described(z.string(), 'The new passkey’s id (32 hex)') }),
);

export const listedPasskey = () =>
  z.object({
    passkey_id: z.string(),
    name: z.string(),
    created_date: described(z.int(), 'UNIX seconds'),
    last_used_date: described(z.nullable(z.int()), 'UNIX seconds of its last login or step-up; null: never used'),
    backed_up: described(z.union([z.literal(0), z.literal(1)]), '1: synced by the platform (iCloud Keychain, Google Password Manager)'),
  });

export const passkeysResult = z.lazy(() => z.object({ passkeys: z.array(listedPasskey()) }));

export const passkeyRemoveResult = z.lazy(() =>
  z.object({ message: z.string(), revoked: described(z.int(), 'Sessions the passkey had begun, ended with it') }),
);

export const passkeyLoginOptionsResult = z.lazy(() =>
  z.object({
    message: z.string(),
    options: optionsResult(
      'PublicKeyCredentialRequestOptionsJSON: challenge (single-use, 300 s), rpId, userVerification required, and with a phone ' +
        'allowCredentials (the same shape whether or not the phone has an account or passkeys)',
    ),
  }),
);

export { loginPinResult as passkeyLoginResult } from '../pins/login-pin-result.js';

export type PasskeyRegisterInput = z.output<typeof passkeyRegisterBody>;
export type PasskeyLoginInput = z.output<typeof passkeyLoginBody>;
export type AssertionInput = Omit<PasskeyLoginInput, 'not_me'>;
export type PasskeyRemoveInput = z.output<typeof passkeyRemoveBody>;
export type PasskeyRegisterOptionsResult = z.output<typeof passkeyRegisterOptionsResult>;
export type PasskeyRegisterResult = z.output<typeof passkeyRegisterResult>;
export type PasskeysResult = z.output<typeof passkeysResult>;
export type PasskeyRemoveResult = z.output<typeof passkeyRemoveResult>;
export type PasskeyLoginOptionsResult = z.output<typeof passkeyLoginOptionsResult>;
export type { LoginPinResult as PasskeyLoginResult } from '../pins/login-pin-result.js';

export type PasskeyOwnCall<Body> = Call<Body, Record<string, never>, Principal> & RequestKey;
export type PasskeyPublicCall<Body> = Call<Body> & RequestKey & RequestProof;
