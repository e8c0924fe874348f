import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// A stored answer (it may carry a session token or a phone proof) sealed with AES-256-GCM under a
// key derived from the server's idempotency key and the client's Idempotency-Key: the table alone,
// or the table and the server secret without the client's key, opens nothing. The record's own
// key is the additional data, so a sealed answer moved to another record does not open.

const IV_BYTES = 12;
const TAG_BYTES = 16;

function answerKey(serverKey: Buffer, idempotencyKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', serverKey, Buffer.from(idempotencyKey, 'utf8'), 'idempotent-answer', 32));
}

/** base64 of IV, tag and ciphertext. */
export function sealAnswer(serverKey: Buffer, idempotencyKey: string, recordId: string, answer: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', answerKey(serverKey, idempotencyKey), iv);
  cipher.setAAD(Buffer.from(recordId, 'utf8'));
  const sealed = Buffer.concat([cipher.update(answer, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** The answer, or undefined when it does not open under these keys (tampered, or another record's). */
export function openAnswer(serverKey: Buffer, idempotencyKey: string, recordId: string, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', answerKey(serverKey, idempotencyKey), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(recordId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
