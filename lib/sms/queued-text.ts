import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServerKeys } from '../secrets/server-keys.js';
import type { CodeText } from './text-dispatch.js';

// A text waiting in the SMS queue holds a login code: its body is sealed (AES-256-GCM under the
// server secret's queue key, whose version it names), so whoever can read the queue, its
// dead-letter queue or a consumer's failure log reads no code and no phone number. A decoy (the
// code of a phone with no account, which is never sent) is sealed the same way and padded to the
// same size, so the queue does not tell who has an account either.

export interface QueuedText extends CodeText {
  kind: 'text' | 'decoy';
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bodies are padded to a multiple of this: a two-part UCS-2 text fits in one. */
const PAD_TO_BYTES = 1024;
const AAD = Buffer.from('sms-queue', 'utf8');

function padded(text: QueuedText): Buffer {
  const json = Buffer.from(JSON.stringify(text), 'utf8');
  const size = Math.ceil((json.length + 1) / PAD_TO_BYTES) * PAD_TO_BYTES;
  // JSON ends at its last brace: spaces after it change nothing when parsed.
  return Buffer.concat([json, Buffer.alloc(size - json.length, 0x20)]);
}

/** "<key version>.<base64 of IV, tag and ciphertext>" */
export async function sealQueuedText(keys: ServerKeys, text: QueuedText): Promise<string> {
  const { version, key } = await keys.current('sms-queue');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const sealed = Buffer.concat([cipher.update(padded(text)), cipher.final()]);
  return `${version}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

/** The text, or undefined when the body does not open (tampered, or its key version is gone). */
export async function openQueuedText(keys: ServerKeys, body: string): Promise<QueuedText | undefined> {
  const match = /^(\d{1,9})\.([A-Za-z0-9+/=]+)$/.exec(body);
  if (!match) return undefined;
  const key = await keys.atVersion('sms-queue', Number(match[1]));
  const bytes = Buffer.from(match[2]!, 'base64');
  if (!key || bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as QueuedText;
  } catch {
    return undefined;
  }
}
