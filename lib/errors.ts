import type { LimitName } from './observability/metrics.js';
import type { SmsSize } from './sms/sms-segments.js';

// The one table of error codes (API contract, section 4) and the typed error the domain throws.

export const ErrorCodes = {
  BAD_REQUEST: { code: 1, status: 400 },
  COMPANY_ID_INVALID: { code: 2, status: 400 },
  COMPANY_NOT_FOUND: { code: 3, status: 404 },
  UNAUTHORIZED: { code: 4, status: 401 },
  FORBIDDEN: { code: 5, status: 403 },
  NOT_FOUND: { code: 6, status: 404 },
  ALREADY_REGISTERED: { code: 7, status: 409 },
  INVALID_REFERRAL_CODE: { code: 8, status: 400 },
  OTP_INVALID: { code: 9, status: 400 },
  OTP_EXPIRED: { code: 10, status: 400 },
  OTP_ATTEMPTS_EXCEEDED: { code: 11, status: 400 },
  TOO_MANY_REQUESTS: { code: 12, status: 429 },
  PAYLOAD_TOO_LARGE: { code: 13, status: 413 },
  PHONE_NOT_VERIFIED: { code: 14, status: 400 },
  SMS_DESTINATION_NOT_ALLOWED: { code: 15, status: 400 },
  SERVICE_UNAVAILABLE: { code: 16, status: 503 },
  PIN_INVALID: { code: 17, status: 400 },
  PIN_LOCKED: { code: 18, status: 400 },
  AUTHORIZATION_INVALID: { code: 19, status: 400 },
  IDEMPOTENCY_KEY_REUSED: { code: 20, status: 409 },
  LAST_ADMIN: { code: 21, status: 409 },
  DEVICE_LIMIT: { code: 22, status: 409 },
  STATE_CONFLICT: { code: 23, status: 409 },
  INTERNAL_ERROR: { code: 500, status: 500 },
} as const;

export type ErrorName = keyof typeof ErrorCodes;

/** data.message of a failure: the name of its HTTP status. */
export const StatusNames: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** One field-level problem, as listed in data.errors. */
export interface FieldError {
  code: number;
  field: string;
  detail: string;
}

/** What a refusal is, as a security event (lib/observability/audit.ts): answered and logged in one place. */
interface RefusalEvent {
  event: 'limited' | 'destination_refused';
  limit?: LimitName;
  phoneRef?: string;
}

interface AppErrorOptions {
  detail?: string;
  event?: RefusalEvent;
  fields?: FieldError[];
  /** Response headers the failure needs, such as Retry-After. */
  headers?: Record<string, string>;
  /** What the failure tells the client beyond its code, in data (a wrong PIN's attempts_left). */
  data?: FailureDetails;
  cause?: unknown;
}

/** Fields a failure may add to its data. */
export interface FailureDetails {
  attempts_left?: number;
  /** A 403 code 5 for want of a stronger session, or of PINs the user sets (contract 3.15): what the request needs. */
  needs?: 'strong' | 'strong_fresh' | 'pin_setup';
  /** A refused company/update: each code text's size in SMS as measured, by language. */
  sms_sizes?: Record<string, SmsSize>;
  /** A refused company/update: each phone-change warning's size in SMS as measured, by language. */
  phone_change_sizes?: Record<string, SmsSize>;
  /** A refused company/update: each security warning's size in SMS as measured, by warning and then language. */
  warning_sizes?: Partial<Record<string, Record<string, SmsSize>>>;
}

/** An expected failure: the HTTP chain answers it with its code and status, nothing else. */
export class AppError extends Error {
  readonly errorName: ErrorName;
  readonly code: number;
  readonly status: number;
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly data: FailureDetails | undefined;
  /** Set for refusals that are security events; the domain adds the phone_ref it knows. */
  readonly event: RefusalEvent | undefined;

  constructor(name: ErrorName, options: AppErrorOptions = {}) {
    super(options.detail ?? name, { cause: options.cause });
    this.name = 'AppError';
    this.errorName = name;
    this.code = ErrorCodes[name].code;
    this.status = ErrorCodes[name].status;
    this.fields = options.fields;
    this.headers = options.headers;
    this.data = options.data;
    this.event = options.event;
  }
}

/** A failure of one request field, with its own code. */
export function fieldError(name: ErrorName, field: string, detail: string, options: Pick<AppErrorOptions, 'event'> = {}): AppError {
  return new AppError(name, { ...options, detail, fields: [{ code: ErrorCodes[name].code, field, detail }] });
}
