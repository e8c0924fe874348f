import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { JWK } from 'jose';
import { type Clock, epochSeconds, systemClock } from '../clock.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config.js';
import { newKeyPair } from './key-pairs.js';
import { ServerSecretUnavailable } from './server-keys.js';
import type { ParameterReader } from './ssm-secret.js';

// The keys access tokens are signed with (API contract 3.12): ES256 (P-256) or RS256 (RSA 2048) key
// pairs, each named by its `kid` (its RFC 7638 thumbprint) and marked with its `alg`, kept as a key
// set; a set holds both while a stage moves from one to the other (ACCESS_TOKEN_ALG). The private
// set lives where the server secret does (SSM SecureString deployed, a file locally) and only the
// functions that sign read it; the public set (a plain parameter) is what every function verifies
// with and what the JWKS lists.
//
// A key signs from its `signs_from`: a rotation publishes a new key NEW_KEY_LEAD_SECONDS before any
// container signs with it, so a verifier that cached the JWKS knows it first; the key it replaces is
// listed until every token it can have signed has expired (stillNeeded).

/** How a key is stored: in the private set with `d`, in the public set without. */
export interface StoredSigningKey {
  kid: string;
  /** What it signs with; an entry stored before RS256 was added has none, and is ES256 (parseKeySet). */
  alg: SigningAlgorithm;
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

/** What an entry without `alg` is: every key stored before RS256 was added. */
const ALGORITHM_OF_UNMARKED_KEYS: SigningAlgorithm = 'ES256';

/**
 * Each algorithm's keys: how one is made, and its public members in lexicographic order (RFC 7638's
 * thumbprint input, and all the JWKS lists besides kid, alg and use).
 */
const KEY_KINDS = {
  ES256: {
    kty: 'EC',
    generate: () => newKeyPair({ type: 'ec', namedCurve: 'P-256' }).privateKey,
    publicMembers: ['crv', 'kty', 'x', 'y'],
    holds: (jwk: JWK) => jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string',
  },
  RS256: {
    kty: 'RSA',
    // The contract's 2048 bits.
    generate: () => newKeyPair({ type: 'rsa', modulusLength: 2048 }).privateKey,
    publicMembers: ['e', 'kty', 'n'],
    holds: (jwk: JWK) => typeof jwk.e === 'string' && typeof jwk.n === 'string' && Buffer.from(jwk.n, 'base64url').length >= 256,
  },
} as const satisfies Record<SigningAlgorithm, unknown>;

const kindOfKty = (kty: string | undefined) => Object.values(KEY_KINDS).find((kind) => kind.kty === kty);

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
export function rotateKeySet(
  set: StoredKeySet,
  now: number,
  accessTokenTtlSeconds: number,
  { urgent = false, alg = ALGORITHM_OF_UNMARKED_KEYS }: { urgent?: boolean; alg?: SigningAlgorithm } = {},
): Rotation {
  const latest = Math.max(now, ...set.keys.map((key) => key.signs_from));
  const added = newSigningKey(now, urgent ? now : Math.max(latest, now + NEW_KEY_LEAD_SECONDS), alg);
  const kept = urgent ? [added] : stillNeeded([...set.keys, added], accessTokenTtlSeconds, now);
  const keptKids = new Set(kept.map(({ kid }) => kid));
  return { set: { keys: kept }, added, dropped: set.keys.filter(({ kid }) => !keptKids.has(kid)).map(({ kid }) => kid) };
}

/** A new key of `alg` for a set: signing from `signsFrom` (now for a first key or an urgent rotation). */
export function newSigningKey(now: number, signsFrom: number, alg: SigningAlgorithm): StoredSigningKey {
  // Node's JWK export: the public members and the private ones (EC: d; RSA: d, p, q, dp, dq, qi), nothing else.
  const jwk = KEY_KINDS[alg].generate().export({ format: 'jwk' }) as JWK;
  return { kid: thumbprint(jwk), alg, signs_from: signsFrom, created_at: now, jwk };
}

/** A new key set of one key of `alg` that signs at once: what npm start and the tests begin with. */
export function newKeySet(now: number, alg: SigningAlgorithm = ALGORITHM_OF_UNMARKED_KEYS): StoredKeySet {
  return { keys: [newSigningKey(now, now, alg)] };
}

/** A key's RFC 7638 thumbprint: the SHA-256 of its required public members in lexicographic order, base64url. */
function thumbprint(jwk: JWK): string {
  return createHash('sha256')
    .update(JSON.stringify(publicJwk(jwk)))
    .digest('base64url');
}

/** The public half of a key's JWK (its required members, in lexicographic order), as the JWKS lists it. */
export function publicJwk(jwk: JWK): JWK {
  const kind = kindOfKty(jwk.kty);
  if (!kind) throw new ServerSecretUnavailable(`a signing key of type ${jwk.kty} is not ES256's or RS256's`);
  return Object.fromEntries(kind.publicMembers.map((member) => [member, jwk[member]]));
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
  if (!Array.isArray(keys) || keys.length === 0) throw new ServerSecretUnavailable(`the signing key set in ${where} holds no keys`);
  return { keys: keys.map((key: Partial<StoredSigningKey>) => validKey(key, where)) };
}

/** A stored entry as it signs or verifies: its `alg` (ES256 when it has none), a key of that algorithm. */
function validKey(key: Partial<StoredSigningKey>, where: string): StoredSigningKey {
  const alg = key?.alg ?? ALGORITHM_OF_UNMARKED_KEYS;
  const kind = (SIGNING_ALGORITHMS as readonly string[]).includes(alg) ? KEY_KINDS[alg] : undefined;
  const valid =
    typeof key?.kid === 'string' &&
    Number.isSafeInteger(key.signs_from) &&
    Number.isSafeInteger(key.created_at) &&
    kind !== undefined &&
    key.jwk?.kty === kind.kty &&
    kind.holds(key.jwk);
  if (!valid) {
    const named = typeof key?.kid === 'string' ? ` ${key.kid}` : '';
    throw new ServerSecretUnavailable(
      `the signing key set in ${where} holds a key${named} that is no valid ES256 (P-256) or RS256 (RSA 2048) key`,
    );
  }
  return { ...(key as StoredSigningKey), alg };
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

/** The key tokens are signed with now, and the algorithm it signs with (the JWS header's alg). */
export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  key: KeyObject;
}

/** The stage's ACCESS_TOKEN_ALG, and where to say that the key that signs is of another algorithm. */
export interface ExpectedAlgorithm {
  algorithm: SigningAlgorithm;
  logger: Pick<Logger, 'warn'>;
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
  private warnedKid: string | undefined;

  constructor(
    private readonly sources: { private: KeySetSource; public: KeySetSource },
    private readonly accessTokenTtlSeconds: number,
    private readonly clock: Clock = systemClock,
    private readonly expected?: ExpectedAlgorithm,
  ) {}

  /**
   * The newest key whose time to sign has come, whatever its algorithm: a stage moves to another
   * algorithm by a rotation (signing-key:rotate -- --alg), never by a setting alone.
   */
  async signingKey(): Promise<SigningKey> {
    this.privateSet = this.fresh(this.privateSet, this.sources.private, true);
    const { keys } = await this.privateSet;
    const now = epochSeconds(this.clock);
    const signing = keys.filter(({ stored }) => stored.signs_from <= now).at(-1);
    if (!signing) throw new ServerSecretUnavailable('no signing key signs yet');
    const { kid, alg } = signing.stored;
    this.warnOfAnotherAlgorithm(kid, alg);
    return { kid, alg, key: signing.key };
  }

  /** Once per container and signing key (its first signing): a key of another algorithm than ACCESS_TOKEN_ALG signs. */
  private warnOfAnotherAlgorithm(kid: string, alg: SigningAlgorithm): void {
    if (!this.expected || alg === this.expected.algorithm || this.warnedKid === kid) return;
    this.warnedKid = kid;
    this.expected.logger.warn('the signing key is not of ACCESS_TOKEN_ALG: it signs until signing-key:rotate adds one that is', {
      kid,
      alg,
      access_token_alg: this.expected.algorithm,
    });
  }

  /**
   * The public key of a kid that may still verify, when `alg` (the token's header) is that key's own
   * algorithm; else undefined. So a token cannot choose how our key is used (alg confusion: an RS256
   * header over an EC key, HS256 keyed with a public key).
   */
  async verifyingKey(kid: string, alg: string | undefined): Promise<KeyObject | undefined> {
    this.publicSet = this.fresh(this.publicSet, this.sources.public, false);
    let found = this.needed(await this.publicSet).find(({ stored }) => stored.kid === kid);
    if (!found && this.clock.now() - this.lastUnknownKidRead >= UNKNOWN_KID_RECHECK_MS) {
      // Perhaps signed by a key added since this container read the set.
      this.lastUnknownKidRead = this.clock.now();
      this.publicSet = this.load(this.sources.public, false, this.publicSet);
      found = this.needed(await this.publicSet).find(({ stored }) => stored.kid === kid);
    }
    return found && found.stored.alg === alg ? found.key : undefined;
  }

  /** The public keys a verifier needs now, oldest first: what the JWKS lists. */
  async published(): Promise<(JWK & { kid: string })[]> {
    this.publicSet = this.fresh(this.publicSet, this.sources.public, false);
    return this.needed(await this.publicSet).map(({ stored }) => ({
      ...publicJwk(stored.jwk),
      kid: stored.kid,
      alg: stored.alg,
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
