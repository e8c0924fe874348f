import { hkdfSync } from 'node:crypto';
import { config } from '../config.js';

// Every server-side key is derived from one configured secret, one key per purpose, so a
// deployment manages a single secret and no key is reused across purposes.

export type KeyPurpose = 'pin-pepper' | 'otp' | 'cursor';

const derived = new Map<KeyPurpose, Buffer>();

function secretBytes(): Buffer {
  const secret = config.serverSecret;
  const bytes = /^[0-9a-f]+$/i.test(secret) ? Buffer.from(secret, 'hex') : Buffer.from(secret, 'base64');
  if (bytes.length < 32) {
    throw new Error('SERVER_SECRET is missing or shorter than 32 bytes');
  }
  return bytes;
}

export function serverKey(purpose: KeyPurpose): Buffer {
  let key = derived.get(purpose);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretBytes(), 'wallet-auth', purpose, 32));
    derived.set(purpose, key);
  }
  return key;
}
