// The service's configuration, read from its environment by the rules lib/settings.ts declares for
// each setting (default, least value, bounds on a deployed stage); the Config type is what the
// reader builds. readConfig is the only reader of process.env: the composition root (lib/app.ts)
// calls it once per function, and tests and scripts call it with an environment of their own.
import { type DeployedBounds, SETTINGS, type SettingName, settingOf } from './settings.js';

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

export type Environment = Record<string, string | undefined>;

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The algorithms access tokens may be signed with (API contract 3.12, amended): ECDSA P-256, or RSA 2048 for API Gateway's JWT authorizer. */
export const SIGNING_ALGORITHMS = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export const LOCAL_STAGE = SETTINGS.STAGE.default;
/** How many versions of the server secret verify unless SECRET_VERSIONS_KEPT says otherwise. */
export const DEFAULT_SECRET_VERSIONS_KEPT = SETTINGS.SECRET_VERSIONS_KEPT.default;
export const LOCAL_DYNAMODB_PORT = SETTINGS.DYNAMODB_PORT.default;
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

/**
 * The security limits' bounds on a deployed stage, one whose table is AWS's (no DYNAMODB_ENDPOINT),
 * as lib/settings.ts declares them: past them a limit no longer protects. DynamoDB Local's stages
 * (npm start, the tests, bench, load, fuzz, chaos) may pass them, to move a limit out of a test's way.
 * Packaging a deployed stage checks every function's environment by these rules (serverless/config-check.cjs).
 */
export const DEPLOYED_BOUNDS = Object.fromEntries(
  Object.entries(SETTINGS).flatMap(([name, setting]) => ('deployed' in setting ? [[name, setting.deployed]] : [])),
) as Record<string, DeployedBounds>;

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

  /** The setting's text; unset or blank, `fallback`, else its declared default, else ''. */
  text(name: SettingName, fallback?: string): string {
    const raw = this.env[name];
    if (raw !== undefined && raw.trim() !== '') return raw.trim();
    const declared = settingOf(name).default;
    return fallback ?? (declared === undefined ? '' : String(declared));
  }

  optional(name: SettingName): string | undefined {
    return this.text(name) || undefined;
  }

  /** A whole number, at least its declared least value and, on a deployed stage, within its declared bounds. */
  integer(name: SettingName): number {
    const { default: declared, min = 0 } = settingOf(name);
    if (typeof declared !== 'number') throw new Error(`${name} declares no number as its default (lib/settings.ts)`);
    const raw = this.text(name);
    if (raw === '') return declared;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min) {
      this.problems.push(`${name} must be a whole number of at least ${min}`);
      return declared;
    }
    const bounds = this.deployed ? DEPLOYED_BOUNDS[name] : undefined;
    if (bounds && !(bounds.off && value === 0) && (value < (bounds.min ?? min) || value > (bounds.max ?? Number.MAX_SAFE_INTEGER))) {
      const range = bounds.max === undefined ? `at least ${bounds.min}` : `from ${bounds.min ?? min} to ${bounds.max}`;
      this.problems.push(`${name} must be ${range}${bounds.off ? ' (or 0: off)' : ''} on a deployed stage, not ${value}`);
      return declared;
    }
    return value;
  }

  /** A JSON setting, checked by `parse` (which answers a problem, or the value). */
  json<Value>(name: SettingName, fallback: Value, parse: (value: unknown) => Value | string): Value {
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

  oneOf<Value extends string>(name: SettingName, values: readonly Value[], fallback: Value): Value {
    const raw = this.env[name]?.trim() ?? '';
    if (raw === '') return fallback;
    const match = values.find((value) => value.toLowerCase() === raw.toLowerCase());
    if (!match) {
      this.problems.push(`${name} must be one of ${values.join(', ')}, not ${JSON.stringify(raw)}`);
      return fallback;
    }
    return match;
  }
}

/** The configuration a function runs with. */
export type Config = ReturnType<typeof readConfig>;

export function readConfig(env: Environment = process.env) {
  const read = new Reader(env);
  const stage = read.text('STAGE');
  const local = stage === LOCAL_STAGE;
  const dynamodbEndpoint = read.optional('DYNAMODB_ENDPOINT') ?? (local ? LOCAL_DYNAMODB_ENDPOINT : undefined);
  read.deployed = dynamodbEndpoint === undefined;
  const config = {
    stage,
    tableName: read.text('TABLE_NAME', `wallet-auth-${stage}`),
    dynamodbEndpoint,
    dynamodbTimeoutMs: read.integer('DYNAMODB_TIMEOUT_MS'),
    dynamodbFirstAttemptTimeoutMs: Math.min(read.integer('DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS'), read.integer('DYNAMODB_TIMEOUT_MS')),
    dynamodbMaxAttempts: read.integer('DYNAMODB_MAX_ATTEMPTS'),
    region: read.text('AWS_REGION', env.AWS_DEFAULT_REGION?.trim() || undefined),
    /** Dummy AWS credentials for emulators: set when an endpoint is configured and the environment holds none. */
    dummyCredentials: false as boolean,
    serverSecret: read.optional('SERVER_SECRET'),
    serverSecretFile: read.optional('SERVER_SECRET_FILE') ?? (local ? '.data/server-secret' : undefined),
    // serverless.yml passes the same name (custom.serverSecretParameter); the default lets the
    // operator commands (STAGE=prod npm run employee:create ...) find it too.
    serverSecretParameter: read.optional('SERVER_SECRET_PARAMETER') ?? (local ? undefined : `/wallet-auth/${stage}/server-secret`),
    ssmEndpoint: read.optional('SSM_ENDPOINT'),
    ssmTimeoutMs: read.integer('SSM_TIMEOUT_MS'),
    ssmMaxAttempts: read.integer('SSM_MAX_ATTEMPTS'),
    secretVersionsKept: read.integer('SECRET_VERSIONS_KEPT'),
    tokenTtlSeconds: read.integer('TOKEN_TTL_SECONDS'),
    accessTokenTtlSeconds: read.integer('ACCESS_TOKEN_TTL_SECONDS'),
    /** The algorithm of the keys this stage makes (signing-key:rotate, a first start); the newest key of the set signs, whatever its own. */
    accessTokenAlg: read.oneOf('ACCESS_TOKEN_ALG', SIGNING_ALGORITHMS, SETTINGS.ACCESS_TOKEN_ALG.default),
    // serverless.yml sets it on every deployed function; an operator command that signs no token may go without.
    tokenIssuer: read.text('TOKEN_ISSUER', read.deployed ? '' : `http://localhost:${read.text('PORT')}`).replace(/\/+$/, ''),
    tokenAudience: read.text('TOKEN_AUDIENCE'),
    signingKeys: read.optional('SIGNING_KEYS'),
    signingKeysFile: read.optional('SIGNING_KEYS_FILE') ?? (local ? '.data/signing-keys.json' : undefined),
    signingKeysParameter: read.optional('SIGNING_KEYS_PARAMETER') ?? (local ? undefined : `/wallet-auth/${stage}/signing-keys`),
    signingPublicKeysParameter:
      read.optional('SIGNING_PUBLIC_KEYS_PARAMETER') ?? (local ? undefined : `/wallet-auth/${stage}/signing-keys-public`),
    sessionIdleSeconds: read.integer('SESSION_IDLE_SECONDS'),
    refreshReuseGraceSeconds: read.integer('REFRESH_REUSE_GRACE_SECONDS'),
    sessionTouchSeconds: read.integer('SESSION_TOUCH_SECONDS'),
    dpopProofMaxAgeSeconds: read.integer('DPOP_PROOF_MAX_AGE_SECONDS'),
    dpopNonce: read.integer('DPOP_NONCE') === 1,
    /** Locally a proof's htu may name the request's own host (serverless-offline on any port); deployed, TOKEN_ISSUER's only. */
    dpopHtuFromHost: !read.deployed,
    verificationTokenTtlSeconds: read.integer('VERIFICATION_TOKEN_TTL_SECONDS'),
    maxBodyBytes: read.integer('MAX_BODY_BYTES'),
    companyCacheSeconds: read.integer('COMPANY_CACHE_SECONDS'),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'INFO'),
    functionTimeoutMs: read.integer('FUNCTION_TIMEOUT_SECONDS') * 1000,
    deadlineMarginMs: read.integer('DEADLINE_MARGIN_MS'),
    referralCountShards: read.integer('REFERRAL_COUNT_SHARDS'),
    pinMaxFailures: read.integer('PIN_MAX_FAILURES'),
    pinDailyMaxFailures: read.integer('PIN_DAILY_MAX_FAILURES'),
    maxDevicesPerUser: read.integer('MAX_DEVICES_PER_USER'),
    pinLoginWindowSeconds: read.integer('PIN_LOGIN_WINDOW_SECONDS'),
    pinResetOtpSessionSeconds: read.integer('PIN_RESET_OTP_SESSION_SECONDS'),
    accountEraseAfterDays: read.integer('ACCOUNT_ERASE_AFTER_DAYS'),
    phoneChangeHoldHours: read.integer('PHONE_CHANGE_HOLD_HOURS'),
    credentialProbationHours: read.integer('CREDENTIAL_PROBATION_HOURS'),
    probationDevicesMax: read.integer('PROBATION_DEVICES_MAX'),
    stepUpMaxAgeSeconds: read.integer('STEP_UP_MAX_AGE_SECONDS'),
    authorizationTtlSeconds: read.integer('AUTHORIZATION_TTL_SECONDS'),
    admin: {
      sessionSeconds: read.integer('ADMIN_SESSION_HOURS') * 3600,
      lookupsPerHour: read.integer('ADMIN_LOOKUPS_PER_HOUR'),
      approverMinSeconds: read.integer('ADMIN_APPROVER_MIN_HOURS') * 3600,
    },
    otp: {
      ttlSeconds: read.integer('OTP_TTL_SECONDS'),
      maxAttempts: read.integer('OTP_MAX_ATTEMPTS'),
      sendIntervalSeconds: read.integer('OTP_SEND_INTERVAL_SECONDS'),
      sendsPerPhonePerHour: read.integer('OTP_SENDS_PER_PHONE_PER_HOUR'),
      sendsPerCompanyPerHour: read.integer('OTP_SENDS_PER_COMPANY_PER_HOUR'),
      companySendShards: read.integer('OTP_COMPANY_SEND_SHARDS'),
      sendsPerPrefixPerHour: read.integer('OTP_SENDS_PER_PREFIX_PER_HOUR'),
      prefixDigits: read.integer('OTP_PREFIX_DIGITS'),
      sendsPerAddressPerHour: read.integer('OTP_SENDS_PER_ADDRESS_PER_HOUR'),
      verifiesPerAddress: read.integer('OTP_VERIFIES_PER_ADDRESS'),
      verifyAddressWindowSeconds: read.integer('OTP_VERIFY_ADDRESS_WINDOW_SECONDS'),
      failuresPerPhone: read.integer('OTP_FAILURES_PER_PHONE'),
      failureWindowSeconds: read.integer('OTP_FAILURE_WINDOW_SECONDS'),
    },
    events: {
      busName: read.optional('EVENT_BUS_NAME'),
      endpoint: read.optional('EVENTBRIDGE_ENDPOINT'),
      deadLetterQueueUrl: read.optional('EVENTS_DLQ_URL'),
      timeoutMs: read.integer('EVENTS_TIMEOUT_MS'),
      maxAttempts: read.integer('EVENTS_MAX_ATTEMPTS'),
    },
    sms: {
      sender: read.oneOf('SMS_SENDER', ['sns', 'outbox'] as const, local ? 'outbox' : 'sns'),
      outboxFile: read.text('SMS_OUTBOX_FILE'),
      snsEndpoint: read.optional('SNS_ENDPOINT'),
      senderId: read.optional('SMS_SENDER_ID'),
      originationNumber: read.optional('SMS_ORIGINATION_NUMBER'),
      timeoutMs: read.integer('SMS_TIMEOUT_MS'),
      maxAttempts: read.integer('SMS_MAX_ATTEMPTS'),
      delivery: read.oneOf('SMS_DELIVERY', ['direct', 'queue'] as const, local ? 'direct' : 'queue'),
      queueUrl: read.optional('SMS_QUEUE_URL'),
      sqsEndpoint: read.optional('SQS_ENDPOINT'),
      pacing: {
        pools: read.json('SMS_POOLS', DEFAULT_SMS_POOLS, sendingPools),
        countryPartsPerSecond: read.json('SMS_COUNTRY_PARTS_PER_SECOND', {}, countryRates),
        consumers: read.integer('SMS_QUEUE_CONSUMERS'),
      },
      decoy: {
        enabled: read.oneOf('SMS_DECOY_WAIT', ['on', 'off'] as const, 'on') === 'on',
        priorMedianMs: read.integer('SMS_DECOY_PRIOR_MEDIAN_MS'),
        priorP90Ms: read.integer('SMS_DECOY_PRIOR_P90_MS'),
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
  const probationRefused = read.problems.some((problem) => problem.startsWith('CREDENTIAL_PROBATION_HOURS'));
  if (!probationRefused && config.credentialProbationHours < config.phoneChangeHoldHours) {
    // A swapper's device must not settle before their held change could be cancelled (contract 3.15).
    read.problems.push('CREDENTIAL_PROBATION_HOURS must be at least PHONE_CHANGE_HOLD_HOURS');
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
