import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import { type Clock, epochSeconds, systemClock } from '../clock.js';
import { ServerSecretUnavailable } from './server-keys.js';
import type { ParameterReader } from './ssm-secret.js';

// The keys access tokens are signed with (API contract 3.12): ES256 (P-256) key pairs, each named
// by its `kid` (its RFC 7638 thumbprint), kept as a key set. The private set lives where the server
// secret does (SSM SecureString deployed, a file locally) and only the functions that sign read it;
// the public set (a plain parameter) is what every function verifies with and what the JWKS lists.
//
// A key signs from its `signs_from`: a rotation publishes a new key NEW_KEY_LEAD_SECONDS before any
// container signs with it, so a verifier that cached the JWKS knows it first; the key it replaces is
// listed until every token it can have signed has expired (stillNeeded).

/** How a key is stored: in the private set with `d`, in the public set without. */
export interface StoredSigningKey {
  kid: string;
  /** Epoch seconds from which new tokens are signed with it (the newest such key signs). */
  signs_from: number;
  created_at: number;
  jwk: JWK;
}

export interface StoredKeySet {
  keys: StoredSigningKey[];
}

/** A container reads the key sets again this often: a rotation reaches every container within it. */
export const KEY_SET_REFRESH_SECONDS = 300;
/** How long verifiers may cache the JWKS and the discovery document (their Cache-Control max-age). */
export const JWKS_MAX_AGE_SECONDS = 300;
/** A rotated-in key is published this long before it signs: every container and cache has it by then. */
export const NEW_KEY_LEAD_SECONDS = KEY_SET_REFRESH_SECONDS + JWKS_MAX_AGE_SECONDS;
/** Clocks of verifiers may run this far apart from ours. */
const CLOCK_SKEW_SECONDS = 60;
/** An unknown kid makes a container read the public set again, at most this often. */
const UNKNOWN_KID_RECHECK_MS = 60_000;

export const SIGNING_ALGORITHM = 'ES256';

/**
 * Whether a key must still be listed and verify: it signs now or will, or a token it signed may not
 * have expired. A container may sign with a key until it reads its successor (KEY_SET_REFRESH_SECONDS
 * after the successor was added, at the latest when the successor starts to sign), plus a token's lifetime.
 */
export function stillNeeded(keys: StoredSigningKey[], accessTokenTtlSeconds: number, now: number): StoredSigningKey[] {
  const ordered = [...keys].sort((a, b) => a.signs_from - b.signs_from);
  return ordered.filter((_key, index) => {
    const successor = ordered[index + 1];
    if (!successor) return true;
    const lastSigned = Math.max(successor.signs_from, successor.created_at + KEY_SET_REFRESH_SECONDS);
    return now < lastSigned + accessTokenTtlSeconds + CLOCK_SKEW_SECONDS;
  });
}

/** What a rotation did: the set to store, the key it added, the keys it dropped (no longer needed). */
export interface Rotation {
  set: StoredKeySet;
  added: StoredSigningKey;
  dropped: string[];
}

/**
 * A set with one key more: it signs NEW_KEY_LEAD_SECONDS from now (every container and cached JWKS
 * knows it by then), and keys no longer needed (stillNeeded) are dropped. When `urgent` (a key
 * thought leaked) the new key signs at once and is the only one left: every token signed before
 * is refused once a container reads the set (within KEY_SET_REFRESH_SECONDS), and apps refresh.
 */
export function rotateKeySet(set: StoredKeySet, now: number, accessTokenTtlSeconds: number, { urgent = false } = {}): Rotation {
  const latest = Math.max(now, ...set.keys.map((key) => key.signs_from));
  const added = newSigningKey(now, urgent ? now : Math.max(latest, now + NEW_KEY_LEAD_SECONDS));
  const kept = urgent ? [added] : stillNeeded([...set.keys, added], accessTokenTtlSeconds, now);
  const keptKids = new Set(kept.map(({ kid }) => kid));
  return { set: { keys: kept }, added, dropped: set.keys.filter(({ kid }) => !keptKids.has(kid)).map(({ kid }) => kid) };
}

/** A new key for a set: signing from `signsFrom` (now for a first key or an urgent rotation). */
export function newSigningKey(now: number, signsFrom: number): StoredSigningKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return {
    kid: thumbprint(jwk),
    signs_from: signsFrom,
    created_at: now,
    jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d },
  };
}

/** A new key set of one key that signs at once: what npm start and the tests begin with. */
export function newKeySet(now: number): StoredKeySet {
  return { keys: [newSigningKey(now, now)] };
}

/** An EC key's RFC 7638 thumbprint: the SHA-256 of its required members in lexicographic order, base64url. */
function thumbprint(jwk: JWK): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
}

/** The public half of a key's JWK, as the JWKS lists it. */
export function publicJwk(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

/** The public set of a private one: what the public parameter holds. */
export function publicKeySet(set: StoredKeySet): StoredKeySet {
  return { keys: set.keys.map((key) => ({ ...key, jwk: publicJwk(key.jwk) })) };
}

/** A key set read from JSON, or ServerSecretUnavailable naming what is wrong with it. */
export function parseKeySet(text: string, where: string): StoredKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ServerSecretUnavailable(`the signing key set in ${where} is not JSON`);
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  const valid =
    Array.isArray(keys) &&
    keys.length > 0 &&
    keys.every(
      (key: Partial<StoredSigningKey>) =>
        typeof key?.kid === 'string' &&
        Number.isSafeInteger(key.signs_from) &&
        Number.isSafeInteger(key.created_at) &&
        key.jwk?.kty === 'EC' &&
        key.jwk.crv === 'P-256' &&
        typeof key.jwk.x === 'string' &&
        typeof key.jwk.y === 'string',
    );
  if (!valid) throw new ServerSecretUnavailable(`the signing key set in ${where} holds no valid P-256 keys`);
  return { keys: keys as StoredSigningKey[] };
}

/** Where a key set comes from: its current content, read again on every call. */
export type KeySetSource = () => Promise<StoredKeySet>;

/** A key set given in the configuration (SIGNING_KEYS, for tests and scripts). */
export function configuredKeySet(text: string | undefined): KeySetSource {
  return async () => {
    if (!text) throw new ServerSecretUnavailable('no signing key is configured');
    return parseKeySet(text, 'SIGNING_KEYS');
  };
}

/** A key set in a local file (npm start's .data/signing-keys.json). */
export function fileKeySet(file: string, { publicOnly = false } = {}): KeySetSource {
  return async () => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ServerSecretUnavailable(`cannot read ${file}`, { cause: error });
    }
    const set = parseKeySet(text, file);
    return publicOnly ? publicKeySet(set) : set;
  };
}

/** A key set in an SSM parameter (the private one a SecureString), read with ssmParameters' care. */
export function ssmKeySet(read: ParameterReader, name: string): KeySetSource {
  return async () => {
    const parameter = await read(name);
    if (!parameter) throw new ServerSecretUnavailable(`parameter ${name} has no current version`);
    return parseKeySet(parameter.value, `parameter ${name}`);
  };
}

interface LoadedKey {
  stored: StoredSigningKey;
  key: KeyObject;
}

/** A key set as read, with its keys imported, and when. */
interface LoadedSet {
  readAt: number;
  keys: LoadedKey[];
}

/** The key tokens are signed with now. */
export interface SigningKey {
  kid: string;
  key: KeyObject;
}

/**
 * The signing and verifying keys of a container: each set read on first use, kept, and read again
 * every KEY_SET_REFRESH_SECONDS (a failed read again keeps the set it had). An unknown kid reads
 * the public set again at most once a minute, so a forged kid costs at most that.
 */
export class SigningKeys {
  private privateSet: Promise<LoadedSet> | undefined;
  private publicSet: Promise<LoadedSet> | undefined;
  private lastUnknownKidRead = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly sources: { private: KeySetSource; public: KeySetSource },
    private readonly accessTokenTtlSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The newest key whose time to sign has come. */
  async signingKey(): Promise<SigningKey> {
    this.privateSet = this.fresh(this.privateSet, this.sources.private, true);
    const { keys } = await this.privateSet;
    const now = epochSeconds(this.clock);
    const signing = keys.filter(({ stored }) => stored.signs_from <= now).at(-1);
    if (!signing) throw new ServerSecretUnavailable('no signing key signs yet');
    return { kid: signing.stored.kid, key: signing.key };
  }

  /** The public key of a kid that may still verify, or undefined. */
  async verifyingKey(kid: string): Promise<KeyObject | undefined> {
    this.publicSet = this.fresh(this.publicSet, this.sources.public, false);
    let found = this.needed(await this.publicSet).find(({ stored }) => stored.kid === kid);
    if (!found && this.clock.now() - this.lastUnknownKidRead >= UNKNOWN_KID_RECHECK_MS) {
      // Perhaps signed by a key added since this container read the set.
      this.lastUnknownKidRead = this.clock.now();
      this.publicSet = this.load(this.sources.public, false, this.publicSet);
      found = this.needed(await this.publicSet).find(({ stored }) => stored.kid === kid);
    }
    return found?.key;
  }

  /** The public keys a verifier needs now, oldest first: what the JWKS lists. */
  async published(): Promise<(JWK & { kid: string })[]> {
    this.publicSet = this.fresh(this.publicSet, this.sources.public, false);
    return this.needed(await this.publicSet).map(({ stored }) => ({
      ...publicJwk(stored.jwk),
      kid: stored.kid,
      alg: SIGNING_ALGORITHM,
      use: 'sig',
    }));
  }

  private needed(set: LoadedSet): LoadedKey[] {
    const kids = new Set(
      stillNeeded(
        set.keys.map(({ stored }) => stored),
        this.accessTokenTtlSeconds,
        epochSeconds(this.clock),
      ).map(({ kid }) => kid),
    );
    return set.keys.filter(({ stored }) => kids.has(stored.kid));
  }

  /** The set as kept, or read again when it is older than the refresh interval. */
  private fresh(kept: Promise<LoadedSet> | undefined, source: KeySetSource, isPrivate: boolean): Promise<LoadedSet> {
    return kept
      ? kept.then((set) => (this.clock.now() - set.readAt >= KEY_SET_REFRESH_SECONDS * 1000 ? this.load(source, isPrivate, kept) : set))
      : this.load(source, isPrivate);
  }

  /** Reads a set; a failed read keeps the previous set, if there was one (and is not kept itself). */
  private load(source: KeySetSource, isPrivate: boolean, previous?: Promise<LoadedSet>): Promise<LoadedSet> {
    const readAt = this.clock.now();
    const loading = source().then(
      (set) => ({ readAt, keys: [...set.keys].sort((a, b) => a.signs_from - b.signs_from).map((stored) => importKey(stored, isPrivate)) }),
      async (error: unknown) => {
        const kept = previous && (await previous.catch(() => undefined));
        if (kept) return { ...kept, readAt };
        throw error;
      },
    );
    // A failed first read is not kept: the next request reads again.
    loading.catch(() => {
      if (isPrivate && this.privateSet === loading) this.privateSet = undefined;
      if (!isPrivate && this.publicSet === loading) this.publicSet = undefined;
    });
    return loading;
  }
}

function importKey(stored: StoredSigningKey, isPrivate: boolean): LoadedKey {
  try {
    const key = isPrivate
      ? createPrivateKey({ key: stored.jwk as JsonWebKey, format: 'jwk' })
      : createPublicKey({ key: publicJwk(stored.jwk) as JsonWebKey, format: 'jwk' });
    return { stored, key };
  } catch (error) {
    throw new ServerSecretUnavailable(`signing key ${stored.kid} cannot be imported`, { cause: error });
  }
}
