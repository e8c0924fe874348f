import { hkdfSync, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Clock, systemClock } from '../clock.js';
import { DEFAULT_SECRET_VERSIONS_KEPT } from '../config.js';

// Every server-side key is derived from one secret, one key per purpose, so a deployment
// manages a single secret and no key is reused across purposes. The secret has versions:
// what is hashed or signed names the version it used, so a new secret can take over while
// what the old one made still verifies.

type KeyPurpose = 'pin-pepper' | 'otp' | 'cursor' | 'phone-ref' | 'idempotency' | 'sms-queue' | 'refresh' | 'passkey' | 'dpop-nonce';

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

/**
 * After a rotation, other containers already make what names the new version, while this one
 * still knows the old current. Meeting a version above its current, it asks the source for the
 * current again, at most this often: a forged version costs at most one read a minute.
 */
const CURRENT_RECHECK_MS = 60_000;

/** Compares two secrets of equal length in constant time: timingSafeEqual unless a test hands in its own. */
export type CompareSecrets = (given: Buffer, expected: Buffer) => boolean;

interface ServerKeysOptions {
  /** How many versions verify, the current one included: older ones are refused unread. */
  versionsKept?: number;
  /** When the current version was read, for the recheck above. */
  clock?: Clock;
  compare?: CompareSecrets | undefined;
}

/**
 * The keys of every purpose, derived on first use from the source's versions and kept. Only the
 * versions from the current one back to `versionsKept - 1` older ones are ever asked of the
 * source: any other version (a forged cursor's, a stale hash's) is refused without a read, and at
 * most `versionsKept` older versions are kept, missing ones included, least recently used first out.
 */
export class ServerKeys {
  private readonly derived = new WeakMap<SecretVersion, Map<KeyPurpose, Buffer>>();
  private currentVersion: Promise<SecretVersion> | undefined;
  private currentReadAt = Number.NEGATIVE_INFINITY;
  /** Older versions by number, the least recently used first; undefined: the source has no such version. */
  private readonly olderVersions = new Map<number, Promise<SecretVersion | undefined>>();
  readonly versionsKept: number;
  private readonly clock: Clock;
  private readonly compare: CompareSecrets;

  constructor(
    private readonly source: SecretSource,
    { versionsKept = DEFAULT_SECRET_VERSIONS_KEPT, clock = systemClock, compare = timingSafeEqual }: ServerKeysOptions = {},
  ) {
    this.versionsKept = Math.max(1, versionsKept);
    this.clock = clock;
    this.compare = compare;
  }

  /**
   * Whether a value a client sent equals the one made with these keys (a hash, a signature):
   * every such check in the service comes here, compared in constant time. Only the lengths,
   * which are public, are compared before.
   */
  equal(given: Buffer, expected: Buffer): boolean {
    return given.length === expected.length && this.compare(given, expected);
  }

  /** The key new hashes and signatures of this purpose use, with its version. */
  async current(purpose: KeyPurpose): Promise<VersionedKey> {
    const current = await this.readCurrent();
    return { version: current.version, key: this.derive(current, purpose) };
  }

  /**
   * The key of this purpose at a version a stored hash or a cursor names; undefined when that
   * version is above the current one, older than the oldest kept, or gone from the source.
   */
  async atVersion(purpose: KeyPurpose, version: number): Promise<Buffer | undefined> {
    let current = await this.readCurrent();
    if (version > current.version && this.clock.now() - this.currentReadAt >= CURRENT_RECHECK_MS) {
      current = await this.recheckCurrent(current);
    }
    if (version === current.version) return this.derive(current, purpose);
    if (!this.keeps(version, current.version)) return undefined;
    const secret = await this.older(version);
    return secret && this.derive(secret, purpose);
  }

  /** The oldest version that still verifies, given the current one. */
  oldestKept(currentVersion: number): number {
    return Math.max(1, currentVersion - this.versionsKept + 1);
  }

  /** The older versions kept in memory (for tests and diagnostics), least recently used first. */
  get cachedVersions(): number[] {
    return [...this.olderVersions.keys()];
  }

  private keeps(version: number, currentVersion: number): boolean {
    return Number.isSafeInteger(version) && version < currentVersion && version >= this.oldestKept(currentVersion);
  }

  private readCurrent(): Promise<SecretVersion> {
    if (!this.currentVersion) {
      this.currentReadAt = this.clock.now();
      this.currentVersion = this.source.current().catch((error: unknown) => {
        // Not kept: the next request asks the source again.
        this.currentVersion = undefined;
        throw error;
      });
    }
    return this.currentVersion;
  }

  /** Reads the current version again; on failure the container keeps the one it had. */
  private recheckCurrent(known: SecretVersion): Promise<SecretVersion> {
    this.currentReadAt = this.clock.now();
    const recheck: Promise<SecretVersion> = this.source.current().then(
      (current) => {
        if (current.version > known.version) this.remember(known.version, Promise.resolve(known));
        return current.version >= known.version ? current : known;
      },
      (error: unknown) => {
        if (this.currentVersion === recheck) this.currentVersion = Promise.resolve(known);
        throw error;
      },
    );
    this.currentVersion = recheck;
    return recheck;
  }

  private older(version: number): Promise<SecretVersion | undefined> {
    const kept = this.olderVersions.get(version);
    if (kept) return this.remember(version, kept);
    const read: Promise<SecretVersion | undefined> = this.source.version(version).catch((error: unknown) => {
      // A failed read is not an answer: the next request asks again.
      if (this.olderVersions.get(version) === read) this.olderVersions.delete(version);
      throw error;
    });
    return this.remember(version, read);
  }

  /** Keeps a version as the most recently used, dropping the least recently used past the bound. */
  private remember(version: number, secret: Promise<SecretVersion | undefined>): Promise<SecretVersion | undefined> {
    this.olderVersions.delete(version);
    this.olderVersions.set(version, secret);
    for (const [oldest] of this.olderVersions) {
      if (this.olderVersions.size <= this.versionsKept) break;
      this.olderVersions.delete(oldest);
    }
    return secret;
  }

  private derive(secret: SecretVersion, purpose: KeyPurpose): Buffer {
    let keys = this.derived.get(secret);
    if (!keys) {
      keys = new Map();
      this.derived.set(secret, keys);
    }
    let key = keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', secret.secret, 'wallet-auth', purpose, 32));
      keys.set(purpose, key);
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
