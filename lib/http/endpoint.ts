import type * as z from 'zod/mini';
import type { Config } from '../config.js';
import type { ErrorName, FailureDetails } from '../errors.js';

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
  account: 'The account: its profile and everything held about the user',
  tokens: 'For services that verify access tokens: the issuer and its keys (no CompanyID)',
  admin: 'The back office: the company’s staff serve its users (employees with a role)',
} as const;

/** Whether a call needs a token: "optional" still refuses a bad one, since a client that sends one expects it to count. */
export type AuthRequirement = 'required' | 'optional' | 'none';

/**
 * Some DynamoDB actions on some kinds of item (serverless/key-kinds.cjs); with attributes, an update
 * that names only those; with returns, what it may read back. The form serverless/permissions.cjs describes.
 */
export interface TableGrant {
  actions: readonly string[];
  keys: readonly string[];
  attributes?: readonly string[];
  returns?: readonly string[];
}

/** What a function's IAM role allows, and nothing more (serverless/permissions.cjs says what each part grants). */
export interface FunctionGrants {
  table?: readonly TableGrant[];
  secret?: boolean;
  signingKeys?: 'verify' | 'sign';
  sms?: boolean;
  queue?: 'send' | 'consume';
}

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
  /** What its 400 (code 1) may add to data beside message and errors (lib/errors.ts, FailureDetails). */
  failureData?: (keyof FailureDetails)[];
  /**
   * Its answer carries a credential (a session token, a refresh token, a phone proof): replayed by
   * Idempotency-Key only while what it spent could still have been used (lib/http/idempotency.ts).
   */
  answersCredential?: true;
  /**
   * It may end the very session its token names (a logout, a deletion, the removal of the caller's
   * own device): a retry with its Idempotency-Key then finds that session over, and is answered the
   * first outcome from the key's record rather than 401 (lib/http/idempotency.ts).
   */
  endsOwnSession?: true;
  /**
   * Its function's memory in MB, 512 unless set here: Lambda's CPU grows with it, so a call that
   * hashes (a PIN, a code, a password) takes 1,024 or more (docs/performance.md).
   */
  memorySize?: number;
  examples: { request?: unknown; result: unknown };
  /** Its function's IAM role (serverless/permissions.cjs; proven by tests/deploy/function-permissions.test.ts). */
  grants: FunctionGrants;
}

/** The validated input of an endpoint's body or query: {} when it takes none. */
export type InputOf<Schema> = Schema extends z.core.$ZodType ? z.output<Schema> : Record<string, never>;

/** A session's tokens as the examples show them (the access token's signature is made up). */
export const sampleTokens = {
  token: {
    type: 'Token',
    token:
      'eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.' +
      'eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.' +
      'JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g',
  },
  refresh_token:
    '5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8',
  expires_in: 900,
} as const;
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
