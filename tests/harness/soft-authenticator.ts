import { createHash, type KeyObject, randomBytes, sign } from 'node:crypto';
import { encodeCBOR } from '@levischuck/tiny-cbor';
import { newKeyPair } from '../../lib/secrets/key-pairs.js';

// A software WebAuthn authenticator for tests (API contract 3.16): a P-256 key per credential,
// authenticatorData built as the spec lays it out, a `none` attestation encoded with CBOR. What it
// answers is the WebAuthn JSON a browser's PublicKeyCredential.toJSON() gives. A synced copy (the
// user's "new phone", holding the same credential) is clone(); a copy that keeps a counter of its
// own shows a counter that went back.

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  x: Buffer;
  y: Buffer;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface AuthenticatorOptions {
  /** Signature counter kept and raised on each use (a security key); else 0 forever (a synced passkey). */
  keepsCounter?: boolean;
  /** Backup eligible and backed up flags (a synced passkey): true unless said. */
  backedUp?: boolean;
  /** User verification done (the UV flag): true unless said. */
  userVerified?: boolean;
  /**
   * The attestation statement it sends, whatever was asked: `none` unless said; `packed`, a
   * self-attestation signed by the credential's key; `tpm`, a statement no verifier would accept.
   */
  attestation?: 'none' | 'packed' | 'tpm';
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(readonly options: AuthenticatorOptions = {}) {}

  /** A copy holding the same credentials, as a synced platform gives a new phone. */
  clone(options: AuthenticatorOptions = this.options): SoftAuthenticator {
    const copy = new SoftAuthenticator(options);
    copy.credentials.push(...this.credentials.map((credential) => ({ ...credential })));
    return copy;
  }

  private flags(extra: number): number {
    const { backedUp = true, userVerified = true } = this.options;
    return 0x01 | (userVerified ? 0x04 : 0) | (backedUp ? 0x08 | 0x10 : 0) | extra;
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create with these creation options (JSON) on a page of `origin`. */
  create(
    options: Record<string, any>,
    origin: string,
    overrides: { rpId?: string; challenge?: string; type?: string; credentialId?: Buffer } = {},
  ) {
    const rpId = overrides.rpId ?? options.rp.id;
    const { privateKey, publicKey } = newKeyPair({ type: 'ec', namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credential: Credential = {
      id: overrides.credentialId ?? randomBytes(16),
      privateKey,
      x: Buffer.from(jwk.x!, 'base64url'),
      y: Buffer.from(jwk.y!, 'base64url'),
      rpId,
      userHandle: options.user.id,
      counter: 0,
    };
    const cose = encodeCBOR(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(credential.x)],
        [-3, new Uint8Array(credential.y)],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, credential.id, Buffer.from(cose)]);
    const authData = this.authData(rpId, this.flags(0x40), credential.counter, attested);
    const clientData = {
      type: overrides.type ?? 'webauthn.create',
      challenge: overrides.challenge ?? options.challenge,
      origin,
      crossOrigin: false,
    };
    const clientDataJSON = Buffer.from(JSON.stringify(clientData));
    const fmt = this.options.attestation ?? 'none';
    const statement = new Map<string, number | string | Uint8Array | Uint8Array[]>();
    if (fmt === 'packed')
      statement.set('alg', -7).set('sig', new Uint8Array(sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey)));
    if (fmt === 'tpm')
      for (const [key, value] of Object.entries({
        ver: '2.0',
        alg: -7,
        sig: randomBytes(64),
        certInfo: randomBytes(32),
        pubArea: randomBytes(32),
      }))
        statement.set(key, typeof value === 'string' || typeof value === 'number' ? value : new Uint8Array(value));
    const attestation = new Map<string, string | Map<string, number | string | Uint8Array | Uint8Array[]> | Uint8Array>([
      ['fmt', fmt],
      ['attStmt', statement],
      ['authData', new Uint8Array(authData)],
    ]);
    const attestationObject = encodeCBOR(attestation);
    this.credentials.push(credential);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get with these request options (JSON) on a page of `origin`: the first credential allowed for rpId. */
  get(
    options: Record<string, any>,
    origin: string,
    overrides: { rpId?: string; challenge?: string; counter?: number; credential?: Credential } = {},
  ) {
    const rpId = overrides.rpId ?? options.rpId;
    const allowed: string[] | undefined = options.allowCredentials?.map(({ id }: { id: string }) => id);
    const credential =
      overrides.credential ??
      this.credentials.find((held) => held.rpId === (options.rpId ?? rpId) && (!allowed?.length || allowed.includes(b64url(held.id))));
    if (!credential) throw new Error('NotAllowedError: no credential for this request');
    if (this.options.keepsCounter) credential.counter += 1;
    const counter = overrides.counter ?? credential.counter;
    const authData = this.authData(rpId, this.flags(0), counter);
    const clientData = { type: 'webauthn.get', challenge: overrides.challenge ?? options.challenge, origin, crossOrigin: false };
    const clientDataJSON = Buffer.from(JSON.stringify(clientData));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
