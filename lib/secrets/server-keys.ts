import { hkdfSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';

// Every server-side key is derived from one secret, one key per purpose, so a deployment
// manages a single secret and no key is reused across purposes. The secret has versions:
// what is hashed or signed names the version it used, so a new secret can take over while
// what the old one made still verifies.

export type KeyPurpose = 'pin-pepper' | 'otp' | 'cursor' | 'phone-ref';

/** One version of the secret. */
export interface SecretVersion {
  version: number;
  secret: Buffer;
}

/** Where the secret comes from: the environment locally, SSM Parameter Store when deployed. */
export interface SecretSource {
  /** The version new hashes and signatures use. */
  current(): Promise<SecretVersion>;
  /** An older version, named by a stored hash; undefined when it no longer exists. */
  version(version: number): Promise<SecretVersion | undefined>;
}

/** The secret could not be had: the service cannot hash or verify, and answers 503. */
export class ServerSecretUnavailable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`server secret unavailable: ${reason}`, options);
    this.name = 'ServerSecretUnavailable';
  }
}

const MIN_SECRET_BYTES = 32;

/** The bytes of a secret written as hex or base64; at least 32 of them, or it is refused. */
export function secretBytes(text: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-f]+$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ServerSecretUnavailable(`it holds ${bytes.length} bytes of key material; at least ${MIN_SECRET_BYTES} are needed`);
  }
  return bytes;
}

export interface VersionedKey {
  version: number;
  key: Buffer;
}

/** The keys of every purpose, derived on first use from the source's versions and kept. */
export class ServerKeys {
  private readonly derived = new Map<string, Buffer>();
  private currentVersion: Promise<SecretVersion> | undefined;
  private readonly versions = new Map<number, Promise<SecretVersion | undefined>>();

  constructor(private readonly source: SecretSource) {}

  /** The key new hashes and signatures of this purpose use, with its version. */
  async current(purpose: KeyPurpose): Promise<VersionedKey> {
    this.currentVersion ??= this.source.current().catch((error: unknown) => {
      // Not kept: the next request asks the source again.
      this.currentVersion = undefined;
      throw error;
    });
    const current = await this.currentVersion;
    return { version: current.version, key: this.derive(current, purpose) };
  }

  /** The key of this purpose at a version a stored hash names; undefined when that version is gone. */
  async atVersion(purpose: KeyPurpose, version: number): Promise<Buffer | undefined> {
    const current = await this.currentVersion;
    if (current?.version === version) return this.derive(current, purpose);
    let found = this.versions.get(version);
    if (!found) {
      found = this.source.version(version).catch((error: unknown) => {
        this.versions.delete(version);
        throw error;
      });
      this.versions.set(version, found);
    }
    const secret = await found;
    return secret && this.derive(secret, purpose);
  }

  private derive({ version, secret }: SecretVersion, purpose: KeyPurpose): Buffer {
    const id = `${version}/${purpose}`;
    let key = this.derived.get(id);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', secret, 'wallet-auth', purpose, 32));
      this.derived.set(id, key);
    }
    return key;
  }
}

/** A secret given in the configuration (SERVER_SECRET): one version, 1. */
export function configuredSecret(secretText: string | undefined): SecretSource {
  const read = async (): Promise<SecretVersion> => {
    if (!secretText) throw new ServerSecretUnavailable('no server secret is configured');
    return { version: 1, secret: secretBytes(secretText) };
  };
  return {
    current: read,
    version: async (version) => (version === 1 ? read() : undefined),
  };
}

/** A secret kept in a local file (npm start's .data/server-secret): one version, 1. */
export function fileSecret(file: string): SecretSource {
  const read = async (): Promise<SecretVersion> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ServerSecretUnavailable(`cannot read ${file}`, { cause: error });
    }
    return { version: 1, secret: secretBytes(text) };
  };
  return {
    current: read,
    version: async (version) => (version === 1 ? read() : undefined),
  };
}
