import type * as z from 'zod/mini';
import type { Config } from '../config.js';
import type { ErrorName } from '../errors.js';

// What the API promises for one operation. Handlers take their auth and schemas from it; the
// OpenAPI document, the deploy test and the conformance tests read the same definitions.
// Route, function file, endpoint module, domain function and operationId share one name.
// Its schemas are z.lazy, built on the first call rather than at a cold start's import, and a
// phone check loads the numbering plan on first use too (docs/performance.md, "cold starts").

/** The groups of operations in the API document, and what each holds. */
export const API_TAGS = {
  auth: 'Registration and phone login',
  referrals: 'The referral program',
  notifications: 'Notifications and their read state',
} as const;

/** Whether a call needs a token: "optional" still refuses a bad one, since a client that sends one expects it to count. */
export type AuthRequirement = 'required' | 'optional' | 'none';

export interface Endpoint {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  /** The group the document lists it under. */
  tag: keyof typeof API_TAGS;
  /** Built from the configuration, so the document states the limits the service applies. */
  description: (config: Config) => string;
  auth: AuthRequirement;
  body?: z.core.$ZodType;
  /** Whether a call must send the body (default true); false where an absent body means the schema's defaults. */
  bodyRequired?: boolean;
  query?: z.core.$ZodType;
  /** The data of the success envelope. */
  result: z.core.$ZodType;
  /** Refusals this operation can give beyond those of the middleware chain (lib/http/middleware.ts, chainErrors). */
  errors: ErrorName[];
  /**
   * Its answer carries a credential (a session token, a phone proof): replayed by Idempotency-Key
   * to a caller without a token only while what it spent could still have been used (lib/http/idempotency.ts).
   */
  answersCredential?: true;
  examples: { request?: unknown; result: unknown };
}

/** The validated input of an endpoint's body or query: {} when it takes none. */
export type InputOf<Schema> = Schema extends z.core.$ZodType ? z.output<Schema> : Record<string, never>;

export const sampleToken = { type: 'Token', token: 'kT3oV2nq8N0x9C1bY4rS7uW6zA5dE2fG1hJ0kL9mP8Q' } as const;
export const sampleUserId = '5f1c7a2b9d3e4f60718293a4b5c6d7e8';

/** "5 minutes", "1 hour", "30 days": a number of seconds as the descriptions say it. */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, name] = units.find(([size]) => seconds % size === 0 && seconds >= size) ?? [1, 'second'];
  const count = seconds / size;
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}

/** "16 KiB": a byte count as the descriptions say it. */
export function byteSize(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
