// Every setting of the service, declared once: its environment name, its default, its bounds on a
// deployed stage and what it means. lib/config.ts reads the functions' settings by these rules; the
// deploy passes them (serverless/environment.cjs) and takes its own parameters from here
// (serverless/parameters.cjs); docs/configuration.md's table and docs/security.md's bounds are
// written from here by `npm run docs` and checked by tests/config.test.ts.

/** A security limit's bounds on a deployed stage (AWS's table); with `off`, 0 too (the limit turned off). */
export interface DeployedBounds {
  min?: number;
  max?: number;
  off?: true;
  /** Why the bound: docs/security.md's "Bounds on a deployed stage". */
  why: string;
}

/**
 * Who gives a setting its value on a deployed stage:
 * - operator: the deployer's shell, passed to every function (unset: the default);
 * - stack: the deploy itself, from the stack's own names and resources (serverless.yml, custom.stackSettings);
 * - operator or stack: the shell's if set, else the stack's;
 * - stand-in: nobody: npm start and the tests point it at this machine's stand-in (DynamoDB Local,
 *   a loopback SNS...), and any other stage refuses to package with it set (serverless/local-endpoints.cjs);
 * - tests: tests and scripts only, never the deploy;
 * - aws: Lambda's own environment;
 * - parameter: the deployer's shell, read by the deploy (serverless/parameters.cjs) and by no function;
 * - start: npm start's own.
 */
export type SettingSource = 'operator' | 'stack' | 'operator or stack' | 'stand-in' | 'tests' | 'aws' | 'parameter' | 'start';

export interface Setting {
  /** What it means, one line (docs/configuration.md). */
  means: string;
  /** Its value when unset; none: unset. */
  default?: number | string;
  /** The default as the docs say it, where it depends on the stage or is not a plain value. */
  defaultText?: string;
  /** Least value any stage takes (integers). */
  min?: number;
  deployed?: DeployedBounds;
  /** Who sets it on a deployed stage; "operator" unless said. */
  source?: SettingSource;
  /** A stack's setting that npm start and the tests may still point at a stand-in (as "stand-in" settings are). */
  standIn?: true;
  /** Given to this function alone (serverless.yml), not to every function. */
  only?: 'eventsPublish';
}

const DAY = 24 * 3600;

export const SETTINGS = {
  // The stage and its stand-ins
  STAGE: { source: 'stack', default: 'local', means: 'the deployment stage' },
  TABLE_NAME: { source: 'stack', defaultText: '`wallet-auth-<stage>`', means: 'the DynamoDB table' },
  DYNAMODB_ENDPOINT: {
    source: 'stand-in',
    defaultText: 'local stage: `http://127.0.0.1:8000`; others: AWS',
    means: 'another DynamoDB endpoint (DynamoDB Local); unset on a deployed stage, which is how the service knows it is one',
  },
  DYNAMODB_TIMEOUT_MS: { default: 1000, min: 1, means: 'timeout of each attempt of a DynamoDB call, so a slow table fails fast' },
  DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS: {
    default: 300,
    min: 1,
    means:
      'timeout of the first attempt of a DynamoDB call (at most `DYNAMODB_TIMEOUT_MS`): a call stalled on its way (DynamoDB answers in milliseconds) is tried again soon, and a table slow for every call gets the whole timeout on the retries',
  },
  DYNAMODB_MAX_ATTEMPTS: {
    default: 6,
    min: 1,
    means:
      'attempts of each DynamoDB call, with a short backoff between them; a retry is sent only if it would end within the time of the first attempt and two retries timed out, so a stalled table is given up on as fast as with 3',
  },
  AWS_REGION: { source: 'aws', default: 'us-east-1', means: 'the region of every AWS client (or `AWS_DEFAULT_REGION`)' },
  AWS_ACCESS_KEY_ID: {
    source: 'aws',
    means: 'the usual AWS credentials; with a local endpoint and none set, the clients use dummy ones, so nothing reaches AWS',
  },
  PORT: { source: 'start', default: 3000, means: 'npm start’s HTTP port, and so the local tokens’ issuer' },
  LAMBDA_PORT: { source: 'start', default: 3002, means: 'serverless-offline’s Lambda API port (functions with no route)' },
  DYNAMODB_PORT: { source: 'start', default: 8000, means: 'npm start’s DynamoDB Local port' },

  // The server secret and the signing keys
  SERVER_SECRET_PARAMETER: {
    source: 'stack',
    defaultText: '`/wallet-auth/<stage>/server-secret`',
    means: 'the SSM SecureString holding the server secret; its version names every hash made with it (operations.md)',
  },
  SERVER_SECRET: { source: 'tests', means: 'the server secret itself (at least 32 random bytes, hex or base64): tests and scripts only' },
  SERVER_SECRET_FILE: {
    source: 'stand-in',
    defaultText: 'local stage: `.data/server-secret`',
    means: 'a file holding the server secret (`npm start` makes it once)',
  },
  SSM_ENDPOINT: { source: 'stand-in', means: 'another SSM endpoint (the tests use a loopback one)' },
  SSM_TIMEOUT_MS: { default: 1000, min: 1, means: 'timeout of each attempt to read a secret from SSM' },
  SSM_MAX_ATTEMPTS: { default: 3, min: 1, means: 'attempts of one read from SSM' },
  SECRET_VERSIONS_KEPT: { default: 10, min: 1, means: 'versions of the server secret that still verify, the current one included' },
  SIGNING_KEYS_PARAMETER: {
    source: 'stack',
    defaultText: '`/wallet-auth/<stage>/signing-keys`',
    means: 'the SSM SecureString of the private signing keys, read only by the functions that answer a session',
  },
  SIGNING_PUBLIC_KEYS_PARAMETER: {
    source: 'stack',
    defaultText: '`/wallet-auth/<stage>/signing-keys-public`',
    means: 'the SSM String of the public signing keys, which every function verifies with',
  },
  SIGNING_KEYS_FILE: {
    source: 'stand-in',
    defaultText: 'local stage: `.data/signing-keys.json`',
    means: 'a file holding the signing key set (`npm start` makes one key on first start)',
  },
  SIGNING_KEYS: { source: 'tests', means: 'the signing key set as JSON: tests and scripts only' },

  // Tokens and sessions
  TOKEN_ISSUER: {
    source: 'operator or stack',
    defaultText: 'local stages: `http://localhost:<PORT>`; deployed: the HTTP API’s URL',
    means: 'the access tokens’ `iss`, under which the discovery document and JWKS are served; https on a deployed stage',
  },
  TOKEN_AUDIENCE: { default: 'wallet', means: 'the access tokens’ `aud`' },
  ACCESS_TOKEN_TTL_SECONDS: {
    default: 900,
    min: 1,
    deployed: { min: 60, max: 3600, why: 'how long a service that checks tokens offline takes one after its session ended' },
    means: 'an access token’s lifetime',
  },
  ACCESS_TOKEN_ALG: {
    default: 'ES256',
    means:
      'the algorithm of the keys `signing-key:rotate` (without `--alg`) and a first start make: `ES256`, or `RS256` (RSA 2048), which API Gateway’s JWT authorizer verifies; the newest key signs, whatever its own (operations.md)',
  },
  TOKEN_TTL_SECONDS: {
    default: 30 * DAY,
    min: 1,
    deployed: { max: 90 * DAY, why: 'a stolen token’s life' },
    means: 'a session’s lifetime, and so its refresh tokens’',
  },
  SESSION_IDLE_SECONDS: {
    default: 14 * DAY,
    min: 1,
    deployed: { max: 30 * DAY, why: 'the same for an unused session' },
    means: 'a session unused this long is over',
  },
  REFRESH_REUSE_GRACE_SECONDS: {
    default: 10,
    deployed: { max: 60, why: 'how long a copy of a just-spent refresh token still gets its successor instead of being taken for theft' },
    means: 'a refresh token just spent, presented again this soon, gets the same successor (a lost answer, two refreshes at once); 0: off',
  },
  DPOP_PROOF_MAX_AGE_SECONDS: {
    default: 60,
    min: 1,
    deployed: { max: 300, why: 'how long a DPoP proof made in advance, or copied, stays usable where no nonce is asked' },
    means: 'a DPoP proof’s `iat` must be this close to now (contract 3.17)',
  },
  DPOP_NONCE: {
    default: 0,
    means:
      '1: every DPoP proof must carry a nonce the service issued (`DPoP-Nonce`, RFC 9449 section 8) and is accepted exactly once; 0: off',
  },
  SESSION_TOUCH_SECONDS: { default: 3600, means: 'a session’s last use is recorded at most this often' },
  VERIFICATION_TOKEN_TTL_SECONDS: {
    default: 900,
    min: 1,
    deployed: { max: 3600, why: 'a phone proof registers or resets a PIN once' },
    means: 'lifetime of a phone proof (`verification_token`)',
  },
  AUTHORIZATION_TTL_SECONDS: {
    default: 120,
    min: 1,
    deployed: { max: 300, why: 'PSD2’s RTS allow 5 minutes without activity after authentication' },
    means: 'how long a transaction authorization can be redeemed',
  },

  // Requests
  FUNCTION_TIMEOUT_SECONDS: { source: 'stack', default: 10, min: 1, means: 'the Lambda timeout each request is measured against' },
  DEADLINE_MARGIN_MS: {
    default: 1000,
    means: 'a request still at work this long before that timeout is answered 503, code 16',
  },
  MAX_BODY_BYTES: { default: 16 * 1024, min: 1, means: 'largest request body' },
  COMPANY_CACHE_SECONDS: {
    default: 30,
    deployed: { max: 30, why: 'contract 6: a company’s setting (a disable) is in force within 30 seconds' },
    means: 'how long a warm container reuses an active company record',
  },
  LOG_LEVEL: {
    default: 'INFO',
    means:
      'the logger’s level: DEBUG, INFO, WARN, ERROR or SILENT; INFO or DEBUG on a deployed stage (above INFO the audit events are lost)',
  },
  REFERRAL_COUNT_SHARDS: {
    source: 'tests',
    default: 10,
    min: 1,
    means: 'the items a user’s referral count is kept in (fixed: a stage that changed it would lose the counts of the shards it drops)',
  },

  // PINs, devices, the account
  PIN_MAX_FAILURES: {
    default: 5,
    min: 1,
    deployed: {
      max: 10,
      why: '10 guesses of a 4-digit PIN’s 10,000 is a 0.1 % chance before the lock that only a reset opens',
    },
    means:
      'wrong PINs in a row on one tally before it locks (code 18): a login PIN counts per device, a transaction PIN per session strength (contract 3.15)',
  },
  PIN_DAILY_MAX_FAILURES: {
    default: 10,
    min: 1,
    deployed: { max: 20, why: 'guesses of one PIN a holder of the number can spread over new devices in a day' },
    means:
      'wrong PINs of one user per PIN in the 24 hours from the first, over every tally; then the tallies it caps lock: a login PIN’s of devices bound after its latest right entry, a transaction PIN’s all (contract 3.15)',
  },
  MAX_DEVICES_PER_USER: {
    default: 10,
    min: 1,
    deployed: { max: 20, why: 'device keys that may each log in with the PIN' },
    means: 'devices bound to one user; binding one more removes the least recently used, with its sessions',
  },
  PIN_LOGIN_WINDOW_SECONDS: {
    default: 300,
    min: 1,
    deployed: { max: 600, why: 'how old a PIN login’s signed timestamp may be' },
    means: 'how far a PIN login’s signed `timestamp` may lie from the server’s clock, either way',
  },
  PIN_RESET_OTP_SESSION_SECONDS: {
    default: 600,
    min: 1,
    deployed: { max: 900, why: 'how long an OTP login may reset a PIN without another proof (contract 3.7: 10 minutes)' },
    means: 'how long after an OTP login its session may reset a PIN without a phone proof',
  },
  PHONE_CHANGE_HOLD_HOURS: {
    default: 24,
    min: 0,
    deployed: {
      min: 24,
      why: 'a SIM swapper who passed an OTP login and the login PIN must not move the account before the owner, whose old number goes dead, has had a day to see the SMS and the notice and cancel',
    },
    means: 'hours a phone change asked for from an OTP-login session waits before a login to the new number completes it (contract 3.11)',
  },
  CREDENTIAL_PROBATION_HOURS: {
    default: 24,
    min: 0,
    deployed: {
      min: 24,
      why: 'a device bound by an OTP login (which a SIM swapper passes) must not log in strongly before the owner has had a day to see the SMS and the notice',
    },
    means:
      'hours a device bound at an OTP login stays on probation (its PIN logins SMS-strength); it settles then only if no strong login by an older credential happened meanwhile (contract 3.15); at least PHONE_CHANGE_HOLD_HOURS',
  },
  PROBATION_DEVICES_MAX: {
    default: 3,
    min: 1,
    deployed: { max: 10, why: 'devices a holder of the number alone can keep bound' },
    means:
      'devices on probation one user may have; one more removes the oldest on probation (settled devices are never removed by a binding)',
  },
  STEP_UP_MAX_AGE_SECONDS: {
    default: 600,
    min: 1,
    deployed: {
      max: 900,
      why: 'how long a strong proof (PIN on a settled device, passkey) counts as fresh for a change that takes the account',
    },
    means:
      'a strong session proven (login or step-up) longer ago than this must step up before PIN, phone, device, passkey or admin-only changes',
  },
  ACCOUNT_ERASE_AFTER_DAYS: {
    default: 30,
    means: 'days between a deletion request and the erasure (0: the eraser’s next run); `npm run user:restore` undoes it until then',
  },

  // The back office (API contract 3.14)
  ADMIN_SESSION_HOURS: {
    default: 12,
    min: 1,
    deployed: { max: 24, why: 'how long after a login a staff session may still act on customers’ accounts' },
    means: 'a staff session acts on the back office only this long after its OTP or PIN login (older: 400 code 14)',
  },
  ADMIN_APPROVER_MIN_HOURS: {
    default: 72,
    min: 0,
    deployed: { min: 72, why: 'an admin made recently (perhaps by the very person whose request waits) must not approve' },
    means: 'an admin made less than this long ago approves neither a recovery nor a grant (contract 3.14, amended in round 6)',
  },
  ADMIN_LOOKUPS_PER_HOUR: {
    default: 120,
    min: 1,
    deployed: { max: 1000, why: 'searches and views one insider (or one stolen staff session) can script in an hour' },
    means: 'searches and views per employee per clock hour (then 429 code 12)',
  },

  // Login codes
  OTP_TTL_SECONDS: {
    default: 300,
    min: 1,
    deployed: { max: 600, why: 'NIST SP 800-63B: a code sent out of band is valid at most 10 minutes' },
    means: 'how long a code is valid',
  },
  OTP_MAX_ATTEMPTS: {
    default: 5,
    min: 1,
    deployed: { max: 10, why: 'guesses compared with one 6-digit code' },
    means: 'wrong tries a code survives',
  },
  OTP_SEND_INTERVAL_SECONDS: {
    default: 60,
    deployed: { min: 30, why: 'fresh codes (and so fresh tries) for one phone' },
    means: 'least time between two sends to one phone',
  },
  OTP_SENDS_PER_PHONE_PER_HOUR: {
    default: 5,
    min: 1,
    deployed: { max: 20, why: 'the same, and texts a stranger can make a phone receive' },
    means: 'sends to one phone within an hour',
  },
  OTP_SENDS_PER_COMPANY_PER_HOUR: {
    default: 1000,
    min: 1,
    deployed: {
      max: 100_000,
      why: 'above SNS’s default account rate (72,000 an hour) a default ceiling stops nothing; a company’s own (`company:update --sms-per-hour`) is the operator’s choice',
    },
    means: 'a company’s sends per clock hour, unless the company has its own',
  },
  OTP_COMPANY_SEND_SHARDS: {
    default: 10,
    min: 1,
    means: 'the counters a company’s hour is split over, each an equal share of its ceiling (scaling.md)',
  },
  OTP_SENDS_PER_PREFIX_PER_HOUR: {
    default: 20,
    deployed: { max: 1000, off: true, why: 'a bigger number is the limit off in disguise' },
    means: 'a company’s sends per clock hour to one number range (0: off)',
  },
  OTP_PREFIX_DIGITS: {
    default: 6,
    min: 1,
    deployed: { max: 8, why: 'more digits make a range smaller, and a pumping run spreads over more of them' },
    means: 'national digits, after the country code, that name a number range',
  },
  OTP_SENDS_PER_ADDRESS_PER_HOUR: {
    default: 30,
    deployed: { max: 1000, off: true, why: 'a bigger number is the limit off in disguise' },
    means: 'send requests per clock hour from one source address (IPv6: its /64; 0: off)',
  },
  OTP_VERIFIES_PER_ADDRESS: {
    default: 30,
    deployed: { max: 1000, off: true, why: 'a bigger number is the limit off in disguise' },
    means: 'verify attempts per window from one source address (0: off)',
  },
  OTP_VERIFY_ADDRESS_WINDOW_SECONDS: {
    default: 300,
    min: 1,
    deployed: { min: 60, why: 'as the failure window' },
    means: 'that window',
  },
  OTP_FAILURES_PER_PHONE: {
    default: 10,
    min: 1,
    deployed: { max: 20, why: 'wrong codes for a phone across codes, within the window below' },
    means: 'wrong codes for one phone, across codes, before it locks',
  },
  OTP_FAILURE_WINDOW_SECONDS: {
    default: DAY,
    min: 1,
    deployed: { min: 3600, why: 'a shorter window gives a phone’s guesses back sooner' },
    means: 'the window those are counted in, opened by the first',
  },

  // SMS
  SMS_SENDER: { source: 'stand-in', defaultText: 'local stage: `outbox`; others: `sns`', means: 'where texts go: `sns` or `outbox`' },
  SMS_OUTBOX_FILE: { source: 'stand-in', default: '.data/sms-outbox.jsonl', means: 'the local outbox' },
  SNS_ENDPOINT: { source: 'stand-in', means: 'another SNS endpoint (the tests use a loopback one)' },
  SMS_SENDER_ID: { means: 'alphanumeric sender id, in countries that support one' },
  SMS_ORIGINATION_NUMBER: { means: 'an origination number (E.164) registered in the account' },
  SMS_TIMEOUT_MS: { default: 2000, min: 1, means: 'timeout of each attempt to queue a text or publish it' },
  SMS_MAX_ATTEMPTS: { default: 2, min: 1, means: 'attempts of queuing a text (login_phone) or publishing it (smsSend)' },
  SMS_DELIVERY: {
    source: 'stack',
    standIn: true,
    defaultText: 'local stages: `direct`; others: `queue`',
    means: '`queue`: login_phone queues the sealed text and smsSend sends it at the pools’ pace; `direct`: published in the request',
  },
  SMS_QUEUE_URL: { source: 'stack', standIn: true, defaultText: 'the stack’s `SmsQueue`', means: 'the SQS queue of texts' },
  SQS_ENDPOINT: { source: 'stand-in', means: 'another SQS endpoint (the tests use a loopback one)' },
  SMS_POOLS: {
    defaultText: 'one pool, every country, 20 parts/s',
    means: 'sending pools as JSON: `[{"name", "countries": ["US", ...] or ["*"], "partsPerSecond", "originationNumber"?}]`',
  },
  SMS_COUNTRY_PARTS_PER_SECOND: { means: 'per-country caps on top of the pools, JSON: `{"IN": 10}`' },
  SMS_QUEUE_CONSUMERS: {
    default: 2,
    min: 1,
    means: 'smsSends at once (each sends at rate / consumers): the queue’s event source and the pacing both read it',
  },
  SMS_QUEUE_BATCH_SIZE: { source: 'parameter', default: 10, means: 'texts a batch of the SMS queue' },
  SMS_DECOY_WAIT: {
    source: 'tests',
    default: 'on',
    means: 'a login code for a phone with no account is answered after a send’s time; `off` only for measuring',
  },
  SMS_DECOY_PRIOR_MEDIAN_MS: { default: 100, min: 1, means: 'that wait’s median in a container that has timed fewer than 20 sends' },
  SMS_DECOY_PRIOR_P90_MS: { default: 250, min: 1, means: 'and its 90th percentile' },

  // Events
  EVENT_BUS_NAME: {
    source: 'stack',
    only: 'eventsPublish',
    defaultText: 'deployed: the stack’s `EventBus`; local stages: `wallet-auth-<stage>`',
    means: 'the EventBridge bus the events’ publisher puts the events on',
  },
  EVENTBRIDGE_ENDPOINT: {
    source: 'stand-in',
    only: 'eventsPublish',
    means: 'another endpoint for the publisher’s EventBridge and dead-letter queue',
  },
  EVENTS_DLQ_URL: {
    source: 'stack',
    standIn: true,
    only: 'eventsPublish',
    defaultText: 'the stack’s `EventsDeadLetterQueue`',
    means: 'where the publisher sets aside events EventBridge kept refusing',
  },
  EVENTS_TIMEOUT_MS: { default: 2000, min: 1, means: 'timeout of each PutEvents attempt' },
  EVENTS_MAX_ATTEMPTS: { default: 5, min: 1, means: 'puts of one event (with backoff) before it goes to the dead-letter queue' },

  // The deploy's own parameters
  API_RATE_LIMIT: { source: 'parameter', default: 500, means: 'API Gateway’s steady requests per second for the whole stage' },
  API_BURST_LIMIT: { source: 'parameter', default: 1000, means: 'and its burst' },
  REGISTER_RATE_LIMIT: {
    source: 'parameter',
    default: 50,
    means: 'the same for `user_register`, whose scrypt hashes any client can make us compute',
  },
  REGISTER_BURST_LIMIT: { source: 'parameter', default: 100, means: 'and its burst' },
  REGISTER_RESERVED_CONCURRENCY: {
    source: 'parameter',
    default: 20,
    means: '`user_register`’s reserved concurrency, its own share of the account’s and its ceiling (the account must keep 100 unreserved)',
  },
  PAYMENT_SERVICE_ROLE_ARN: {
    source: 'parameter',
    default: '',
    means: 'the IAM role ARN of the payment service, the one principal that may invoke `redeemAuthorization`; none: no grant',
  },
  ALARM_EMAIL: {
    source: 'parameter',
    default: '',
    means: 'the address the alarm topic mails; none: subscribe to the `AlarmTopicArn` output',
  },
  SMS_SPEND_ALARM_USD: { source: 'parameter', default: 50, means: 'the month’s SMS spend that raises an alarm' },
  SMS_ALARM_COUNTRIES: {
    source: 'parameter',
    default: 'US',
    means: 'the countries (ISO codes, comma-separated) whose SMS delivery rate has an alarm',
  },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

export const settingOf = (name: SettingName): Setting => SETTINGS[name];

/** Its source: "operator" unless declared. */
export const sourceOf = (name: SettingName): SettingSource => settingOf(name).source ?? 'operator';

/** The settings npm start and the tests may point at this machine's stand-ins, and no other stage may take from a shell. */
export const STAND_IN_SETTINGS = (Object.keys(SETTINGS) as SettingName[]).filter(
  (name) => sourceOf(name) === 'stand-in' || settingOf(name).standIn,
);
