import { ERROR_NAMES } from './generated/api-facts.js';

/** The envelope every answer of the service is (API contract 1). */
export interface Envelope {
  success: 0 | 1;
  error: number[];
  data: Record<string, unknown>;
}

/**
 * A call the service refused, or could not be made. `name` is the first code's name of the contract's
 * section 4 (`PIN_LOCKED`, `OTP_INVALID` ...); `NETWORK_ERROR` when no answer came back after every retry.
 */
export class WalletAuthError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The envelope's `error` array. */
  readonly codes: number[];
  /** The envelope's `data`: `message`, and `errors`, `attempts_left` ... where the contract gives them. */
  readonly data: Record<string, unknown>;
  /** Seconds the service asked to wait before trying again (its `Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, codes: number[], data: Record<string, unknown>, retryAfterSeconds?: number, options?: { cause?: unknown }) {
    const name = errorName(status, codes);
    super(`${name} (HTTP ${status})`, options);
    this.name = name;
    this.status = status;
    this.codes = codes;
    this.data = data;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Whether any of the answer's codes has this name. */
  is(name: string): boolean {
    return this.codes.some((code) => ERROR_NAMES[code] === name);
  }
}

function errorName(status: number, codes: number[]): string {
  if (status === 0) return 'NETWORK_ERROR';
  const first = codes[0];
  return first === undefined ? `HTTP_${status}` : (ERROR_NAMES[first] ?? `CODE_${first}`);
}

/**
 * The envelope of an answer, or one made for an answer that is not one: API Gateway's own throttling
 * answers `429 {"message": "Too Many Requests"}` (code 12), a gateway's time-out a bare 503 (code 16).
 */
export function envelopeOf(status: number, body: unknown): Envelope {
  const answer = body as Partial<Envelope> | undefined;
  if (answer && (answer.success === 0 || answer.success === 1) && Array.isArray(answer.error)) {
    return { success: answer.success, error: answer.error, data: answer.data ?? {} };
  }
  const code = status === 429 ? 12 : status === 503 ? 16 : status >= 500 ? 500 : undefined;
  return {
    success: 0,
    error: code === undefined ? [] : [code],
    data: { message: 'the service answered something other than its envelope' },
  };
}
