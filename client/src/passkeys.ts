// Passkeys (API contract 3.16): the two ceremonies, on whatever runs WebAuthn for the app. The
// server's options and the platform's answers travel as the WebAuthn JSON (base64url for every
// binary part), which React Native passkey modules take and give as they are; on the web,
// browserPasskeys() turns it into navigator.credentials' binary arguments and back. No library:
// the conversion is base64url and ArrayBuffers only (@simplewebauthn/browser would add ~10 kB
// for the same); every WebAuthn check is the server's.

/** What runs the ceremonies: navigator.credentials (browserPasskeys), or a React Native module's JSON API. */
export interface PasskeyPlatform {
  /** Creates a credential from PublicKeyCredentialCreationOptionsJSON; answers its toJSON(). */
  create(options: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Signs with a credential from PublicKeyCredentialRequestOptionsJSON; answers its toJSON(). */
  get(options: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const toBase64url = (buffer: ArrayBuffer | ArrayBufferView): string => {
  const bytes =
    buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

const fromBase64url = (text: string): ArrayBuffer => {
  const binary = atob(
    text
      .replaceAll('-', '+')
      .replaceAll('_', '/')
      .padEnd(Math.ceil(text.length / 4) * 4, '='),
  );
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes.buffer;
};

type Descriptor = { id: string; type?: string; transports?: string[] };
const descriptors = (list: unknown) =>
  Array.isArray(list) ? (list as Descriptor[]).map((each) => ({ ...each, type: 'public-key', id: fromBase64url(each.id) })) : undefined;

/** The creation options as navigator.credentials.create takes them. */
export function creationOptionsFromJSON(options: Record<string, any>): Record<string, unknown> {
  return {
    ...options,
    challenge: fromBase64url(options.challenge),
    user: { ...options.user, id: fromBase64url(options.user.id) },
    ...(options.excludeCredentials ? { excludeCredentials: descriptors(options.excludeCredentials) } : {}),
  };
}

/** The request options as navigator.credentials.get takes them. */
export function requestOptionsFromJSON(options: Record<string, any>): Record<string, unknown> {
  return {
    ...options,
    challenge: fromBase64url(options.challenge),
    ...(options.allowCredentials ? { allowCredentials: descriptors(options.allowCredentials) } : {}),
  };
}

/** A PublicKeyCredential as the WebAuthn JSON: its own toJSON() where the browser has it. */
export function credentialToJSON(credential: any): Record<string, unknown> {
  if (typeof credential?.toJSON === 'function') return credential.toJSON();
  const response = credential.response;
  const binary = (value: ArrayBuffer | null | undefined) => (value ? toBase64url(value) : undefined);
  const common = {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: 'public-key',
    clientExtensionResults: credential.getClientExtensionResults?.() ?? {},
    ...(credential.authenticatorAttachment ? { authenticatorAttachment: credential.authenticatorAttachment } : {}),
  };
  if ('attestationObject' in response) {
    return {
      ...common,
      response: {
        clientDataJSON: binary(response.clientDataJSON),
        attestationObject: binary(response.attestationObject),
        transports: response.getTransports?.() ?? [],
      },
    };
  }
  return {
    ...common,
    response: {
      clientDataJSON: binary(response.clientDataJSON),
      authenticatorData: binary(response.authenticatorData),
      signature: binary(response.signature),
      ...(response.userHandle ? { userHandle: binary(response.userHandle) } : {}),
    },
  };
}

/** The web's platform: navigator.credentials (or another CredentialsContainer). */
export function browserPasskeys(
  credentials: Pick<CredentialsContainer, 'create' | 'get'> = globalThis.navigator.credentials,
): PasskeyPlatform {
  return {
    async create(options) {
      const created = await credentials.create({ publicKey: creationOptionsFromJSON(options) as never });
      if (!created) throw new Error('no passkey was created');
      return credentialToJSON(created);
    },
    async get(options) {
      const got = await credentials.get({ publicKey: requestOptionsFromJSON(options) as never });
      if (!got) throw new Error('no passkey was chosen');
      return credentialToJSON(got);
    },
  };
}
