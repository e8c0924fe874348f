import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';

// Company, user and notification ids: 128 random bits as 32 hexadecimal characters.

export const HEX_ID_PATTERN = /^[0-9a-fA-F]{32}$/;

/** A new random id, lower-case. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** An id as a client may send it (either case), kept lower-case from then on. */
export function hexIdField(description: string) {
  return z.pipe(
    z.string().check(z.regex(HEX_ID_PATTERN, `must be a 32-hex ${description}`)),
    z.transform((value: string) => value.toLowerCase()),
  );
}
