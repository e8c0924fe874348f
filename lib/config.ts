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
  /** Milliseconds before a DynamoDB call is abandoned, so a slow table fails fast. */
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

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const stage = text(env, 'STAGE', 'local');
  return {
    stage,
    tableName: text(env, 'TABLE_NAME', `wallet-auth-${stage}`),
    dynamodbEndpoint: text(env, 'DYNAMODB_ENDPOINT') || (stage === 'local' ? LOCAL_DYNAMODB_ENDPOINT : undefined),
    dynamodbTimeoutMs: integer(env, 'DYNAMODB_TIMEOUT_MS', 3000),
    region: text(env, 'AWS_REGION', text(env, 'AWS_DEFAULT_REGION', 'us-east-1')),
    serverSecret: text(env, 'SERVER_SECRET'),
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 30 * 24 * 3600),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 16 * 1024),
    companyCacheSeconds: integer(env, 'COMPANY_CACHE_SECONDS', 30),
    logLevel: text(env, 'LOG_LEVEL', 'INFO'),
  };
}

export const config: Config = readConfig();
