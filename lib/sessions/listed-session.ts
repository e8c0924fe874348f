import * as z from 'zod/mini';
import { SESSION_PREFIX } from '../store/keys.js';

// A session as a list shows it, the user's export (API contract 3.11) and the back office's view
// (3.14) alike: how and when it began, its last use and end, its device. Never a token or a hash.

export const listedSession = z.object({
  began: z.nullable(z.string().check(z.meta({ description: 'How it began: register, otp or pin' }))),
  created_date: z.int().check(z.meta({ description: 'UNIX seconds' })),
  last_used_date: z.int().check(z.meta({ description: 'Its last recorded use (at most hourly), UNIX seconds' })),
  expires_date: z.int().check(z.meta({ description: 'When it ends at the latest, UNIX seconds' })),
  device_key: z.nullable(z.string().check(z.meta({ description: 'The bound device it began on, if any' }))),
});

export type ListedSession = z.output<typeof listedSession>;

/** A stored session item as listed. */
export function listedSessionOf(item: Record<string, unknown>): ListedSession {
  return {
    began: (item.began as string | undefined) ?? null,
    created_date: Number(item.created_at),
    last_used_date: Number(item.last_used_at),
    expires_date: Number(item.expires_at),
    device_key: (item.device_key as string | undefined) ?? null,
  };
}

/**
 * The session's id as the access token's `sid` claim holds it (32 hex), which ending one session
 * takes; null for a session of an opaque token from before 3.12, whose key is the token's hash.
 */
export function sessionIdOf(item: { sk?: unknown }): string | null {
  const id = String(item.sk ?? '').slice(SESSION_PREFIX.length);
  return /^[0-9a-f]{32}$/.test(id) ? id : null;
}
