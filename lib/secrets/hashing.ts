import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { serverKey } from './server-keys.js';

// scrypt at an OWASP Password Storage Cheat Sheet setting: N=2^15, r=8, p=3 costs the same
// work as N=2^17, r=8, p=1 with a quarter of the memory (32 MiB), which suits Lambda.
const SCRYPT = { N: 2 ** 15, r: 8, p: 3, keyLength: 32, saltLength: 16 };
const SCRYPT_MAXMEM = 64 * 1024 * 1024;

function scryptAsync(secret: Buffer | string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** A slow, salted hash in the self-describing form scrypt$N$r$p$salt$hash. */
async function slowHash(secret: Buffer | string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLength);
  const { N, r, p, keyLength } = SCRYPT;
  const key = await scryptAsync(secret, salt, keyLength, { N, r, p, maxmem: SCRYPT_MAXMEM });
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

async function slowVerify(secret: Buffer | string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scryptAsync(secret, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT_MAXMEM,
  });
  return timingSafeEqual(key, expected);
}

/** PINs have few possible values, so they are keyed with the server pepper before hashing. */
function pepperedPin(pin: string): Buffer {
  return createHmac('sha256', serverKey('pin-pepper')).update(pin).digest();
}

export const hashPassword = (password: string) => slowHash(password);
export const verifyPassword = (password: string, stored: string) => slowVerify(password, stored);
export const hashPin = (pin: string) => slowHash(pepperedPin(pin));
export const verifyPin = (pin: string, stored: string) => slowVerify(pepperedPin(pin), stored);

/** Tokens carry 256 random bits, so a fast hash is enough to make a table dump useless. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}
