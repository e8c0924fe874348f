// Every setting the service reads from its environment, in one place, typed, with defaults.

export interface Config {
  /** Deployment stage; "local" for npm start and tests. */
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
  region: string;
  /**
   * Server-side secret (at least 32 bytes, hex or base64) from which the PIN pepper and other
   * keys are derived. Never stored in the table.
   */
  serverSecret: string;
  /** Lifetime of an access token, in seconds. */
  tokenTtlSeconds: number;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Seconds a company record may be served from a warm container's memory. */
  companyCacheSeconds: number;
  logLevel: string;
  otp: {
    /** How long a sent code stays valid, in seconds. */
    ttlSeconds: number;
    /** Wrong tries a code survives; the next try finds it dead. */
    maxAttempts: number;
    /** Least time between two sends to one phone of one company, in seconds. */
    sendIntervalSeconds: number;
    /** Most sends to one phone of one company within an hour. */
    sendsPerPhonePerHour: number;
    /** Most sends of one company within a clock hour: the ceiling against SMS pumping. */
    sendsPerCompanyPerHour: number;
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
    /** Milliseconds before one attempt to publish an SMS is abandoned (the SDK makes up to 2). */
    timeoutMs: number;
  };
}

export const LOCAL_DYNAMODB_PORT = 8000;
const LOCAL_DYNAMODB_ENDPOINT = `http://127.0.0.1:${LOCAL_DYNAMODB_PORT}`;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`configuration ${name} must be a non-negative integer`);
  }
  return value;
}

function text(env: NodeJS.ProcessEnv, name: string, fallback = ''): string {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? fallback : raw.trim();
}

function smsSender(value: string): 'sns' | 'outbox' {
  if (value !== 'sns' && value !== 'outbox') throw new Error('configuration SMS_SENDER must be "sns" or "outbox"');
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const stage = text(env, 'STAGE', 'local');
  return {
    stage,
    tableName: text(env, 'TABLE_NAME', `wallet-auth-${stage}`),
    dynamodbEndpoint: text(env, 'DYNAMODB_ENDPOINT') || (stage === 'local' ? LOCAL_DYNAMODB_ENDPOINT : undefined),
    dynamodbTimeoutMs: integer(env, 'DYNAMODB_TIMEOUT_MS', 1000),
    region: text(env, 'AWS_REGION', text(env, 'AWS_DEFAULT_REGION', 'us-east-1')),
    serverSecret: text(env, 'SERVER_SECRET'),
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 30 * 24 * 3600),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 16 * 1024),
    companyCacheSeconds: integer(env, 'COMPANY_CACHE_SECONDS', 30),
    logLevel: text(env, 'LOG_LEVEL', 'INFO'),
    otp: {
      ttlSeconds: integer(env, 'OTP_TTL_SECONDS', 300),
      maxAttempts: integer(env, 'OTP_MAX_ATTEMPTS', 5),
      sendIntervalSeconds: integer(env, 'OTP_SEND_INTERVAL_SECONDS', 60),
      sendsPerPhonePerHour: integer(env, 'OTP_SENDS_PER_PHONE_PER_HOUR', 5),
      sendsPerCompanyPerHour: integer(env, 'OTP_SENDS_PER_COMPANY_PER_HOUR', 1000),
    },
    sms: {
      sender: smsSender(text(env, 'SMS_SENDER', stage === 'local' ? 'outbox' : 'sns')),
      outboxFile: text(env, 'SMS_OUTBOX_FILE', '.data/sms-outbox.jsonl'),
      snsEndpoint: text(env, 'SNS_ENDPOINT') || undefined,
      senderId: text(env, 'SMS_SENDER_ID') || undefined,
      originationNumber: text(env, 'SMS_ORIGINATION_NUMBER') || undefined,
      timeoutMs: integer(env, 'SMS_TIMEOUT_MS', 2000),
    },
  };
}

export const config: Config = readConfig();
