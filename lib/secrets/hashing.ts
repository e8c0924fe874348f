import { createHash, createHmac, randomBytes, type ScryptOptions, scrypt } from 'node:crypto';
import type { ServerKeys } from './server-keys.js';

// Stored hashes name their scheme and settings, so settings can change while what is stored
// still verifies:
//   password:        scrypt$N$r$p$salt$hash                      (scrypt of the password)
//   PIN:             hmac-scrypt$keyVersion$N$r$p$salt$hash      (scrypt of HMAC(pepper, PIN))
//   PIN, before:     scrypt$N$r$p$salt$hash                      (scrypt of HMAC(pepper of version 1, PIN) at N=2^15, p=3)
// docs/security.md argues the two costs.

export interface ScryptSetting {
  N: number;
  r: number;
  p: number;
}

/**
 * Passwords: one of the scrypt settings the OWASP Password Storage Cheat Sheet lists as equivalent
 * (N=2^17 p=1, 2^16 p=2, 2^15 p=3, 2^14 p=5, 2^13 p=10): the one that costs least CPU in Node,
 * which runs the p lanes one after another (16 MiB; `npm run bench` times them all). Hashes made
 * at N=2^15, p=3 before still verify: each names its own settings.
 */
export const PASSWORD_SCRYPT: ScryptSetting = { N: 2 ** 14, r: 8, p: 5 };
/**
 * PINs: 4 MiB and about 10 ms. With 10^4 to 10^6 values a PIN falls to any hash once the pepper
 * is out, so the pepper is the control; this cost only keeps a pepper-and-table theft from being
 * a one-pass job across every user.
 */
export const PIN_SCRYPT: ScryptSetting = { N: 2 ** 12, r: 8, p: 1 };

/**
 * The scrypt settings new hashes are made with. The App carries them (lib/app.ts): production's
 * unless a test hands in cheaper ones through AppParts; nothing in the environment sets them.
 */
export interface HashCost {
  password: ScryptSetting;
  pin: ScryptSetting;
}

export const PRODUCTION_HASH_COST: HashCost = { password: PASSWORD_SCRYPT, pin: PIN_SCRYPT };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const SCRYPT_MAXMEM = 64 * 1024 * 1024;

function scryptAsync(secret: Buffer | string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The fields scrypt$N$r$p$salt$hash, salt and hash in base64. */
async function scryptFields(secret: Buffer | string, setting: ScryptSetting): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scryptAsync(secret, salt, KEY_LENGTH, { ...setting, maxmem: SCRYPT_MAXMEM });
  return [setting.N, setting.r, setting.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Checks a secret against the fields N$r$p$salt$hash. */
async function scryptMatches(keys: ServerKeys, secret: Buffer | string, fields: string[]): Promise<boolean> {
  const [n, r, p, salt, hash] = fields;
  if (fields.length !== 5 || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const setting = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(setting).every(Number.isSafeInteger) || expected.length === 0) return false;
  const key = await scryptAsync(secret, Buffer.from(salt, 'base64'), expected.length, { ...setting, maxmem: SCRYPT_MAXMEM });
  return keys.equal(key, expected);
}

export async function hashPassword(password: string, setting: ScryptSetting): Promise<string> {
  return `scrypt$${await scryptFields(password, setting)}`;
}

/** Takes the keys for their constant-time comparison only: a password is not keyed. */
export async function verifyPassword(keys: ServerKeys, password: string, stored: string): Promise<boolean> {
  const [scheme, ...fields] = stored.split('$');
  return scheme === 'scrypt' && scryptMatches(keys, password, fields);
}

/** PINs have few possible values, so they are keyed with the server pepper before hashing. */
const pepperedPin = (pepper: Buffer, pin: string) => createHmac('sha256', pepper).update(pin).digest();

export async function hashPin(keys: ServerKeys, pin: string, setting: ScryptSetting): Promise<string> {
  const { version, key } = await keys.current('pin-pepper');
  return `hmac-scrypt$${version}$${await scryptFields(pepperedPin(key, pin), setting)}`;
}

interface PinHash {
  /** The key version whose pepper made it. */
  version: number;
  /** N$r$p$salt$hash. */
  scryptPart: string[];
  /** The scheme before key versions. */
  legacy: boolean;
}

function parsePinHash(stored: string): PinHash | undefined {
  const [scheme, ...fields] = stored.split('$');
  // The scheme before key versions: the pepper of version 1, at the password's scrypt cost.
  if (scheme === 'scrypt') return { version: 1, scryptPart: fields, legacy: true };
  const version = Number(fields[0]);
  if (scheme === 'hmac-scrypt' && Number.isSafeInteger(version) && version > 0)
    return { version, scryptPart: fields.slice(1), legacy: false };
  return undefined;
}

/** The key version a stored PIN hash names (1 for the scheme before versions); undefined if it is no PIN hash. */
export function pinHashVersion(stored: string): number | undefined {
  return parsePinHash(stored)?.version;
}

/**
 * Whether a PIN hash should be made again once its PIN is known (checked right): it names a key
 * version older than the current one, the scheme before versions, or a scrypt setting other than `current`.
 */
export function pinHashIsStale(stored: string, currentVersion: number, current: ScryptSetting): boolean {
  const parsed = parsePinHash(stored);
  if (!parsed) return false;
  const [n, r, p] = parsed.scryptPart.map(Number);
  const setting = n === current.N && r === current.r && p === current.p;
  return parsed.legacy || parsed.version < currentVersion || !setting;
}

export async function verifyPin(keys: ServerKeys, pin: string, stored: string): Promise<boolean> {
  const parsed = parsePinHash(stored);
  if (!parsed) return false;
  const pepper = await keys.atVersion('pin-pepper', parsed.version);
  return pepper !== undefined && scryptMatches(keys, pepperedPin(pepper, pin), parsed.scryptPart);
}

/** Tokens carry at least 128 random bits, so a fast hash is enough to make a table dump useless. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
