// Every setting the service reads from its environment, in one place, typed, with defaults.
// readConfig is the only reader of process.env: the composition root (lib/app.ts) calls it once
// per function, and tests and scripts call it with an environment of their own.

// The SMS queue consumer's pacing (lib/sms/send-pacer.ts paces by it; docs/scaling.md).

/** A pool of sending numbers, and the countries it sends to ('*': every country no pool names). */
export interface SendingPool {
  name: string;
  countries: string[];
  /** Message parts a second this pool's numbers take, all consumers together. */
  partsPerSecond: number;
  /** The pool's origination number (E.164), when it is not the account's default. */
  originationNumber?: string | undefined;
}

export interface PacingSettings {
  pools: SendingPool[];
  /** Parts a second per country (ISO 3166 alpha-2), on top of the pool's rate. */
  countryPartsPerSecond: Record<string, number>;
  /** The queue's most concurrent consumers (the event source's maximum concurrency). */
  consumers: number;
}

export interface Config {
  /** Deployment stage; "local" for npm start. */
  stage: string;
  tableName: string;
  /**
   * Set for DynamoDB Local or any other DynamoDB. Unset, the local stage uses DynamoDB Local on
   * its default port and every other stage the AWS regional endpoint.
   */
  dynamodbEndpoint: string | undefined;
  /**
   * Milliseconds before one attempt of a DynamoDB call is abandoned, so a slow table fails fast;
   * the SDK makes up to 3 attempts, which must all fit in the Lambda timeout.
   */
  dynamodbTimeoutMs: number;
  /** Attempts of one DynamoDB call, the first included; all must fit in the Lambda timeout. */
  dynamodbMaxAttempts: number;
  region: string;
  /**
   * Dummy AWS credentials for emulators (DynamoDB Local, the tests' loopback SNS): set when an
   * endpoint is configured and the environment holds no AWS credentials.
   */
  dummyCredentials: boolean;
  /**
   * Server-side secret (at least 32 bytes, hex or base64) from which the PIN pepper and other
   * keys are derived. Never stored in the table.
   */
  serverSecret: string | undefined;
  /** A file holding the server secret (npm start's .data/server-secret), read when SERVER_SECRET is not set. */
  serverSecretFile: string | undefined;
  /** The SSM Parameter Store SecureString holding the secret on a deployed stage (its name; the value never leaves SSM but into memory). */
  serverSecretParameter: string | undefined;
  /** Only for tests: an SSM endpoint other than AWS's. */
  ssmEndpoint: string | undefined;
  /** Milliseconds before one attempt to read the secret from SSM is abandoned. */
  ssmTimeoutMs: number;
  /** Attempts of one read from SSM, the first included. */
  ssmMaxAttempts: number;
  /**
   * How many versions of the server secret still verify, the current one included: anything
   * naming an older version (or one above the current) is refused without asking the source.
   */
  secretVersionsKept: number;
  /** Lifetime of a session (and of its refresh token), in seconds. */
  tokenTtlSeconds: number;
  /** Lifetime of one access token (a signed JWT, API contract 3.12), in seconds. */
  accessTokenTtlSeconds: number;
  /**
   * The access tokens' `iss`: this service's base URL, under which /.well-known/openid-configuration
   * is served. Empty on a deployed stage without TOKEN_ISSUER: nothing can be signed or verified then.
   */
  tokenIssuer: string;
  /** The access tokens' `aud`. */
  tokenAudience: string;
  /** The signing key set as JSON (tests and scripts); else the file, else the SSM parameters below. */
  signingKeys: string | undefined;
  /** A file holding the signing key set (npm start's .data/signing-keys.json). */
  signingKeysFile: string | undefined;
  /** The SSM SecureString with the private key set: read only by the functions that sign. */
  signingKeysParameter: string | undefined;
  /** The SSM String with the public key set: read by every function that verifies, and the JWKS. */
  signingPublicKeysParameter: string | undefined;
  /** A session unused this long is over, in seconds. */
  sessionIdleSeconds: number;
  /**
   * A refresh token just spent and presented again within this many seconds of its rotation gets
   * the same successor (a lost answer, two refreshes at once), not the end of its session; 0: off.
   */
  refreshReuseGraceSeconds: number;
  /** A session's last use is recorded at most this often, in seconds (not with a write on every call). */
  sessionTouchSeconds: number;
  /** Lifetime of a phone proof (verification_token), in seconds. */
  verificationTokenTtlSeconds: number;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Seconds a company record may be served from a warm container's memory. */
  companyCacheSeconds: number;
  logLevel: LogLevel;
  /** The function's own timeout (Lambda's), in milliseconds. */
  functionTimeoutMs: number;
  /** How long before that timeout a request still at work is answered 503 (code 16). */
  deadlineMarginMs: number;
  /**
   * Shards of a user's referral count: a referred registration adds one to a random shard, so
   * concurrent registrations with one code rarely touch the same item (docs/scaling.md).
   */
  referralCountShards: number;
  /** Consecutive wrong PINs (each PIN counted on its own, over all the user's devices) before that PIN locks. */
  pinMaxFailures: number;
  /** Most devices bound to one user; binding one more removes the least recently used. */
  maxDevicesPerUser: number;
  /** How far a PIN login's signed timestamp may lie from the server's clock, in seconds (either way). */
  pinLoginWindowSeconds: number;
  /** How long after an OTP login its session may reset a PIN without a phone proof, in seconds. */
  pinResetOtpSessionSeconds: number;
  /** Days between a user's deletion request and their account's erasure (0: at the eraser's next run). */
  accountEraseAfterDays: number;
  /** How long a transaction authorization can be redeemed, in seconds (PSD2 wants it short). */
  authorizationTtlSeconds: number;
  otp: {
    /** How long a sent code stays valid, in seconds. */
    ttlSeconds: number;
    /** Wrong tries a code survives; the next try finds it dead. */
    maxAttempts: number;
    /** Least time between two sends to one phone of one company, in seconds. */
    sendIntervalSeconds: number;
    /** Most sends to one phone of one company within an hour. */
    sendsPerPhonePerHour: number;
    /**
     * Most sends of one company within a clock hour: the ceiling against SMS pumping. This and the
     * prefix and address limits below are defaults: a company may set its own (company-limits.ts).
     */
    sendsPerCompanyPerHour: number;
    /**
     * Shards of a company's hourly send counter, each holding an equal share of the ceiling: the
     * most writes a second one item takes is the company's send rate over this (docs/scaling.md).
     */
    companySendShards: number;
    /** Most sends of one company to one number range (prefix) within a clock hour; 0 turns it off. */
    sendsPerPrefixPerHour: number;
    /** Digits of the national number, after the country code, that name a number range. */
    prefixDigits: number;
    /** Most send requests from one source address within a clock hour; 0 turns it off. */
    sendsPerAddressPerHour: number;
    /** Most verify attempts from one source address within a window; 0 turns it off. */
    verifiesPerAddress: number;
    /** That window, in seconds. */
    verifyAddressWindowSeconds: number;
    /** Most wrong codes for one phone of one company, across codes, within a window; then it is locked. */
    failuresPerPhone: number;
    /** That window, in seconds, opened by the first wrong code. */
    failureWindowSeconds: number;
  };
  /** The events of API contract 3.13, put on an EventBridge bus by the publisher (lib/events). */
  events: {
    /** The bus (EVENT_BUS_NAME); only the publisher needs it. */
    busName: string | undefined;
    /** Only for tests and emulators: one endpoint that answers EventBridge and the dead-letter queue's SQS. */
    endpoint: string | undefined;
    /** The queue that keeps what could not be put (EVENTS_DLQ_URL). */
    deadLetterQueueUrl: string | undefined;
    /** Milliseconds before one PutEvents attempt is abandoned. */
    timeoutMs: number;
    /** Puts of one batch of entries, the first included, before what still fails goes to the dead-letter queue. */
    maxAttempts: number;
  };
  sms: {
    /** "sns" sends through Amazon SNS; "outbox" appends to a local file (npm start). */
    sender: 'sns' | 'outbox';
    outboxFile: string;
    /** Only for tests and emulators: an SNS endpoint other than AWS's. */
    snsEndpoint: string | undefined;
    /** Optional alphanumeric sender id, where the destination country supports one. */
    senderId: string | undefined;
    /** Optional origination number (E.164) registered in the AWS account. */
    originationNumber: string | undefined;
    /** Milliseconds before one attempt to publish an SMS is abandoned. */
    timeoutMs: number;
    /** Attempts of one publish, the first included. */
    maxAttempts: number;
    /**
     * "queue": a send stores the code and queues its text, and the queue's consumer sends it,
     * paced (lib/sms/sms-queue.ts); "direct": the request publishes it (local default, tests).
     */
    delivery: 'direct' | 'queue';
    /** The SQS queue of texts; unset with "queue" on a local stage: an in-process queue. */
    queueUrl: string | undefined;
    /** Only for tests and emulators: an SQS endpoint other than AWS's. */
    sqsEndpoint: string | undefined;
    /** How the queue's consumer paces sends (lib/sms/send-pacer.ts). */
    pacing: PacingSettings;
    /**
     * A login code for a phone with no account sends nothing, but its answer waits about as long
     * as a send would (lib/sms/text-dispatch.ts), so the answer time does not tell who has one.
     */
    decoy: {
      /** Off only to measure what the wait hides (the bench, a test). */
      enabled: boolean;
      /**
       * The wait before a container has timed enough real sends of its own: log-normal, with this
       * median and 90th percentile in milliseconds (SNS Publish's usual time from Lambda).
       */
      priorMedianMs: number;
      priorP90Ms: number;
    };
  };
}

export type Environment = Record<string, string | undefined>;

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOCAL_STAGE = 'local';
/** How many versions of the server secret verify unless SECRET_VERSIONS_KEPT says otherwise. */
export const DEFAULT_SECRET_VERSIONS_KEPT = 10;
export const LOCAL_DYNAMODB_PORT = 8000;
const LOCAL_DYNAMODB_ENDPOINT = `http://127.0.0.1:${LOCAL_DYNAMODB_PORT}`;

/** One pool for every country at SNS's default account rate of 20 SMS a second (docs/scaling.md). */
const DEFAULT_SMS_POOLS: SendingPool[] = [{ name: 'default', countries: ['*'], partsPerSecond: 20 }];

const isRate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;
const isCountry = (value: unknown) => typeof value === 'string' && (value === '*' || /^[A-Z]{2}$/.test(value));

/** SMS_POOLS: [{"name", "countries": ["US", ...] or ["*"], "partsPerSecond", "originationNumber"?}, ...] */
function sendingPools(value: unknown): SendingPool[] | string {
  const problem = 'must be a list of {name, countries, partsPerSecond, originationNumber?} with countries as ISO codes or "*"';
  if (!Array.isArray(value) || value.length === 0) return problem;
  for (const pool of value) {
    if (typeof pool !== 'object' || pool === null) return problem;
    const { name, countries, partsPerSecond, originationNumber } = pool as Record<string, unknown>;
    if (typeof name !== 'string' || !name || !Array.isArray(countries) || !countries.every(isCountry) || !isRate(partsPerSecond))
      return problem;
    if (originationNumber !== undefined && (typeof originationNumber !== 'string' || !/^\+[1-9]\d{3,14}$/.test(originationNumber))) {
      return problem;
    }
  }
  return value as SendingPool[];
}

/** SMS_COUNTRY_PARTS_PER_SECOND: {"IN": 10, ...} */
function countryRates(value: unknown): Record<string, number> | string {
  const problem = 'must be an object of ISO country codes to parts a second, such as {"IN": 10}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return problem;
  return Object.entries(value).every(([country, rate]) => isCountry(country) && country !== '*' && isRate(rate))
    ? (value as Record<string, number>)
    : problem;
}

/** A security limit's bounds on a deployed stage; with `off`, 0 too (the limit turned off). */
interface DeployedBounds {
  min?: number;
  max?: number;
  off?: boolean;
}

/**
 * The security limits' bounds on a deployed stage, one whose table is AWS's (no DYNAMODB_ENDPOINT):
 * past them a limit no longer protects (more guesses, codes and sessions that live longer, windows
 * that reopen sooner). DynamoDB Local's stages (npm start, the tests, bench, load, fuzz, chaos) may
 * pass them, to move a limit out of a test's way. Packaging a deployed stage checks every function's
 * environment by these rules (serverless/config-check.cjs); docs/security.md, "Every limit", says why each.
 */
export const DEPLOYED_BOUNDS: Record<string, DeployedBounds> = {
  PIN_MAX_FAILURES: { max: 10 },
  MAX_DEVICES_PER_USER: { max: 20 },
  PIN_LOGIN_WINDOW_SECONDS: { max: 600 },
  PIN_RESET_OTP_SESSION_SECONDS: { max: 900 },
  AUTHORIZATION_TTL_SECONDS: { max: 300 },
  TOKEN_TTL_SECONDS: { max: 90 * 24 * 3600 },
  ACCESS_TOKEN_TTL_SECONDS: { min: 60, max: 3600 },
  SESSION_IDLE_SECONDS: { max: 30 * 24 * 3600 },
  REFRESH_REUSE_GRACE_SECONDS: { max: 60 },
  VERIFICATION_TOKEN_TTL_SECONDS: { max: 3600 },
  COMPANY_CACHE_SECONDS: { max: 30 },
  OTP_TTL_SECONDS: { max: 600 },
  OTP_MAX_ATTEMPTS: { max: 10 },
  OTP_SEND_INTERVAL_SECONDS: { min: 30 },
  OTP_SENDS_PER_PHONE_PER_HOUR: { max: 20 },
  OTP_SENDS_PER_COMPANY_PER_HOUR: { max: 100_000 },
  OTP_SENDS_PER_PREFIX_PER_HOUR: { max: 1000, off: true },
  OTP_PREFIX_DIGITS: { max: 8 },
  OTP_SENDS_PER_ADDRESS_PER_HOUR: { max: 1000, off: true },
  OTP_VERIFIES_PER_ADDRESS: { max: 1000, off: true },
  OTP_VERIFY_ADDRESS_WINDOW_SECONDS: { min: 60 },
  OTP_FAILURES_PER_PHONE: { max: 20 },
  OTP_FAILURE_WINDOW_SECONDS: { min: 3600 },
};

/**
 * The log levels of a deployed stage: above INFO the audit events (INFO lines) are lost. DEBUG adds
 * nothing today (no line is written at DEBUG) and tests/hardening/secrets-in-logs.test.ts runs its
 * flows at DEBUG and finds no secret, so it may stay on for an investigation.
 */
export const DEPLOYED_LOG_LEVELS: readonly LogLevel[] = ['INFO', 'DEBUG'];

/** A configuration the service cannot run with; the message lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads settings from an environment, collecting every problem before giving up. */
class Reader {
  readonly problems: string[] = [];
  /** Whether DEPLOYED_BOUNDS hold: set once the table is known. */
  deployed = false;
  constructor(private readonly env: Environment) {}

  text(name: string, fallback = ''): string {
    const raw = this.env[name];
    return raw === undefined || raw.trim() === '' ? fallback : raw.trim();
  }

  optional(name: string): string | undefined {
    return this.text(name) || undefined;
  }

  integer(name: string, fallback: number, { min = 0 }: { min?: number } = {}): number {
    const raw = this.text(name);
    if (raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min) {
      this.problems.push(`${name} must be a whole number of at least ${min}`);
      return fallback;
    }
    const bounds = this.deployed ? DEPLOYED_BOUNDS[name] : undefined;
    if (bounds && !(bounds.off && value === 0) && (value < (bounds.min ?? min) || value > (bounds.max ?? Number.MAX_SAFE_INTEGER))) {
      const range = bounds.max === undefined ? `at least ${bounds.min}` : `from ${bounds.min ?? min} to ${bounds.max}`;
      this.problems.push(`${name} must be ${range}${bounds.off ? ' (or 0: off)' : ''} on a deployed stage, not ${value}`);
      return fallback;
    }
    return value;
  }

  /** A JSON setting, checked by `parse` (which answers a problem, or the value). */
  json<Value>(name: string, fallback: Value, parse: (value: unknown) => Value | string): Value {
    const raw = this.text(name);
    if (raw === '') return fallback;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.problems.push(`${name} must be JSON`);
      return fallback;
    }
    const parsed = parse(value);
    if (typeof parsed === 'string') {
      this.problems.push(`${name} ${parsed}`);
      return fallback;
    }
    return parsed;
  }

  oneOf<Value extends string>(name: string, values: readonly Value[], fallback: Value): Value {
    const raw = this.text(name);
    if (raw === '') return fallback;
    const match = values.find((value) => value.toLowerCase() === raw.toLowerCase());
    if (!match) {
      this.problems.push(`${name} must be one of ${values.join(', ')}`);
      return fallback;
    }
    return match;
  }
}

export function readConfig(env: Environment = process.env): Config {
  const read = new Reader(env);
  const stage = read.text('STAGE', LOCAL_STAGE);
  const local = stage === LOCAL_STAGE;
  const dynamodbEndpoint = read.optional('DYNAMODB_ENDPOINT') ?? (local ? LOCAL_DYNAMODB_ENDPOINT : undefined);
  read.deployed = dynamodbEndpoint === undefined;
  const config: Config = {
    stage,
    tableName: read.text('TABLE_NAME', `wallet-auth-${stage}`),
    dynamodbEndpoint,
    dynamodbTimeoutMs: read.integer('DYNAMODB_TIMEOUT_MS', 1000, { min: 1 }),
    dynamodbMaxAttempts: read.integer('DYNAMODB_MAX_ATTEMPTS', 3, { min: 1 }),
    region: read.text('AWS_REGION', read.text('AWS_DEFAULT_REGION', 'us-east-1')),
    dummyCredentials: false,
    serverSecret: read.optional('SERVER_SECRET'),
    serverSecretFile: read.optional('SERVER_SECRET_FILE') ?? (local ? '.data/server-secret' : undefined),
    // serverless.yml passes the same name (custom.serverSecretParameter); the default lets the
    // operator commands (STAGE=prod npm run employee:create ...) find it too.
    serverSecretParameter: read.optional('SERVER_SECRET_PARAMETER') ?? (local ? undefined : `/wallet-auth/${stage}/server-secret`),
    ssmEndpoint: read.optional('SSM_ENDPOINT'),
    ssmTimeoutMs: read.integer('SSM_TIMEOUT_MS', 1000, { min: 1 }),
    ssmMaxAttempts: read.integer('SSM_MAX_ATTEMPTS', 3, { min: 1 }),
    secretVersionsKept: read.integer('SECRET_VERSIONS_KEPT', DEFAULT_SECRET_VERSIONS_KEPT, { min: 1 }),
    tokenTtlSeconds: read.integer('TOKEN_TTL_SECONDS', 30 * 24 * 3600, { min: 1 }),
    accessTokenTtlSeconds: read.integer('ACCESS_TOKEN_TTL_SECONDS', 900, { min: 1 }),
    // serverless.yml sets it on every deployed function; an operator command that signs no token may go without.
    tokenIssuer: read.text('TOKEN_ISSUER', read.deployed ? '' : `http://localhost:${read.text('PORT', '3000')}`).replace(/\/+$/, ''),
    tokenAudience: read.text('TOKEN_AUDIENCE', 'wallet'),
    signingKeys: read.optional('SIGNING_KEYS'),
    signingKeysFile: read.optional('SIGNING_KEYS_FILE') ?? (local ? '.data/signing-keys.json' : undefined),
    signingKeysParameter: read.optional('SIGNING_KEYS_PARAMETER') ?? (local ? undefined : `/wallet-auth/${stage}/signing-keys`),
    signingPublicKeysParameter:
      read.optional('SIGNING_PUBLIC_KEYS_PARAMETER') ?? (local ? undefined : `/wallet-auth/${stage}/signing-keys-public`),
    sessionIdleSeconds: read.integer('SESSION_IDLE_SECONDS', 14 * 24 * 3600, { min: 1 }),
    refreshReuseGraceSeconds: read.integer('REFRESH_REUSE_GRACE_SECONDS', 10),
    sessionTouchSeconds: read.integer('SESSION_TOUCH_SECONDS', 3600),
    verificationTokenTtlSeconds: read.integer('VERIFICATION_TOKEN_TTL_SECONDS', 15 * 60, { min: 1 }),
    maxBodyBytes: read.integer('MAX_BODY_BYTES', 16 * 1024, { min: 1 }),
    companyCacheSeconds: read.integer('COMPANY_CACHE_SECONDS', 30),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'INFO'),
    functionTimeoutMs: read.integer('FUNCTION_TIMEOUT_SECONDS', 10, { min: 1 }) * 1000,
    deadlineMarginMs: read.integer('DEADLINE_MARGIN_MS', 1000),
    referralCountShards: read.integer('REFERRAL_COUNT_SHARDS', 10, { min: 1 }),
    pinMaxFailures: read.integer('PIN_MAX_FAILURES', 5, { min: 1 }),
    maxDevicesPerUser: read.integer('MAX_DEVICES_PER_USER', 10, { min: 1 }),
    pinLoginWindowSeconds: read.integer('PIN_LOGIN_WINDOW_SECONDS', 300, { min: 1 }),
    pinResetOtpSessionSeconds: read.integer('PIN_RESET_OTP_SESSION_SECONDS', 600, { min: 1 }),
    accountEraseAfterDays: read.integer('ACCOUNT_ERASE_AFTER_DAYS', 30, { min: 0 }),
    authorizationTtlSeconds: read.integer('AUTHORIZATION_TTL_SECONDS', 120, { min: 1 }),
    otp: {
      ttlSeconds: read.integer('OTP_TTL_SECONDS', 300, { min: 1 }),
      maxAttempts: read.integer('OTP_MAX_ATTEMPTS', 5, { min: 1 }),
      sendIntervalSeconds: read.integer('OTP_SEND_INTERVAL_SECONDS', 60),
      sendsPerPhonePerHour: read.integer('OTP_SENDS_PER_PHONE_PER_HOUR', 5, { min: 1 }),
      sendsPerCompanyPerHour: read.integer('OTP_SENDS_PER_COMPANY_PER_HOUR', 1000, { min: 1 }),
      companySendShards: read.integer('OTP_COMPANY_SEND_SHARDS', 10, { min: 1 }),
      sendsPerPrefixPerHour: read.integer('OTP_SENDS_PER_PREFIX_PER_HOUR', 20),
      prefixDigits: read.integer('OTP_PREFIX_DIGITS', 6, { min: 1 }),
      sendsPerAddressPerHour: read.integer('OTP_SENDS_PER_ADDRESS_PER_HOUR', 30),
      verifiesPerAddress: read.integer('OTP_VERIFIES_PER_ADDRESS', 30),
      verifyAddressWindowSeconds: read.integer('OTP_VERIFY_ADDRESS_WINDOW_SECONDS', 300, { min: 1 }),
      failuresPerPhone: read.integer('OTP_FAILURES_PER_PHONE', 10, { min: 1 }),
      failureWindowSeconds: read.integer('OTP_FAILURE_WINDOW_SECONDS', 24 * 3600, { min: 1 }),
    },
    events: {
      busName: read.optional('EVENT_BUS_NAME'),
      endpoint: read.optional('EVENTBRIDGE_ENDPOINT'),
      deadLetterQueueUrl: read.optional('EVENTS_DLQ_URL'),
      timeoutMs: read.integer('EVENTS_TIMEOUT_MS', 2000, { min: 1 }),
      maxAttempts: read.integer('EVENTS_MAX_ATTEMPTS', 5, { min: 1 }),
    },
    sms: {
      sender: read.oneOf('SMS_SENDER', ['sns', 'outbox'] as const, local ? 'outbox' : 'sns'),
      outboxFile: read.text('SMS_OUTBOX_FILE', '.data/sms-outbox.jsonl'),
      snsEndpoint: read.optional('SNS_ENDPOINT'),
      senderId: read.optional('SMS_SENDER_ID'),
      originationNumber: read.optional('SMS_ORIGINATION_NUMBER'),
      timeoutMs: read.integer('SMS_TIMEOUT_MS', 2000, { min: 1 }),
      maxAttempts: read.integer('SMS_MAX_ATTEMPTS', 2, { min: 1 }),
      delivery: read.oneOf('SMS_DELIVERY', ['direct', 'queue'] as const, local ? 'direct' : 'queue'),
      queueUrl: read.optional('SMS_QUEUE_URL'),
      sqsEndpoint: read.optional('SQS_ENDPOINT'),
      pacing: {
        pools: read.json('SMS_POOLS', DEFAULT_SMS_POOLS, sendingPools),
        countryPartsPerSecond: read.json('SMS_COUNTRY_PARTS_PER_SECOND', {}, countryRates),
        consumers: read.integer('SMS_QUEUE_CONSUMERS', 2, { min: 1 }),
      },
      decoy: {
        enabled: read.oneOf('SMS_DECOY_WAIT', ['on', 'off'] as const, 'on') === 'on',
        priorMedianMs: read.integer('SMS_DECOY_PRIOR_MEDIAN_MS', 100, { min: 1 }),
        priorP90Ms: read.integer('SMS_DECOY_PRIOR_P90_MS', 250, { min: 1 }),
      },
    },
  };
  config.dummyCredentials =
    Boolean(config.dynamodbEndpoint || config.sms.snsEndpoint || config.sms.sqsEndpoint || config.ssmEndpoint || config.events.endpoint) &&
    !read.text('AWS_ACCESS_KEY_ID');
  if (config.deadlineMarginMs >= config.functionTimeoutMs) {
    read.problems.push('DEADLINE_MARGIN_MS must be less than FUNCTION_TIMEOUT_SECONDS');
  }
  const issuerProblem = read.deployed
    ? !/^https:\/\/[^\s/]+(\/\S*)?$/.test(config.tokenIssuer)
    : !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(config.tokenIssuer);
  if (config.tokenIssuer !== '' && issuerProblem) {
    read.problems.push(`TOKEN_ISSUER must be the service’s base URL${read.deployed ? ', https on a deployed stage' : ''}`);
  }
  if (read.deployed && !DEPLOYED_LOG_LEVELS.includes(config.logLevel)) {
    read.problems.push(`LOG_LEVEL must be ${DEPLOYED_LOG_LEVELS.join(' or ')} on a deployed stage (above INFO the audit events are lost)`);
  }
  if (config.sms.decoy.priorP90Ms < config.sms.decoy.priorMedianMs) {
    read.problems.push('SMS_DECOY_PRIOR_P90_MS must be at least SMS_DECOY_PRIOR_MEDIAN_MS');
  }
  // Without a queue's URL, texts queue in the process: a stand-in for this machine only.
  if (config.sms.delivery === 'queue' && !config.sms.queueUrl && !local && !config.dummyCredentials && config.sms.sender === 'sns') {
    read.problems.push('SMS_QUEUE_URL is needed when SMS_DELIVERY is queue on a deployed stage');
  }
  if (read.problems.length) throw new ConfigError(read.problems);
  return config;
}
