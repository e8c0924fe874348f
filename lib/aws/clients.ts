import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { RetryErrorInfo, RetryStrategyV2, RetryToken } from '@smithy/types';
import type { Config } from '../config.js';

// Every AWS SDK client the service uses is built here from the configuration: its region, the
// endpoint of an emulator if one is set, dummy credentials for emulators, and its own attempts
// and per-attempt timeout. Each client's package stays imported only where it is used, so a
// function bundles only the clients it needs.

/** Emulators accept any credentials; these keep the SDK from looking for real ones. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

type AwsService = 'dynamodb' | 'sns' | 'ssm' | 'sqs' | 'events';

export type AwsConfig = Pick<
  Config,
  | 'region'
  | 'dummyCredentials'
  | 'dynamodbEndpoint'
  | 'dynamodbTimeoutMs'
  | 'dynamodbFirstAttemptTimeoutMs'
  | 'dynamodbMaxAttempts'
  | 'ssmEndpoint'
  | 'ssmTimeoutMs'
  | 'ssmMaxAttempts'
> & { sms: Pick<Config['sms'], 'snsEndpoint' | 'sqsEndpoint' | 'timeoutMs' | 'maxAttempts'> } & {
  events?: Pick<Config['events'], 'endpoint' | 'timeoutMs'>;
};

/** What the factory hands every client's constructor. */
interface AwsClientOptions {
  region: string;
  endpoint?: string;
  credentials?: typeof DUMMY_CREDENTIALS;
  maxAttempts: number;
  retryStrategy: RetryStrategyV2;
  requestHandler: NodeHttpHandler;
}

/** The first retry's longest wait (ms) after a transient failure (a reset, a timeout, a 500) and after throttling; each further one doubles it. */
export const RETRY_BASE_MS = { transient: 25, throttling: 50 };

interface CallToken extends RetryToken {
  /** performance.now() when the call's first attempt was sent. */
  startedAt: number;
}

const retryToken = (count: number, delayMs: number, startedAt: number): CallToken => ({
  getRetryCount: () => count,
  getRetryDelay: () => delayMs,
  startedAt,
});

/** The time a call's attempts may take in all, and how long a retry's attempt may take. */
export interface CallBudget {
  budgetMs: number;
  retryTimeoutMs: number;
}

/**
 * How every client retries: as the SDK's standard strategy (a throttled or transient failure is
 * tried again, up to the client's attempts, after a random wait that doubles each time), less two
 * things made for long-lived processes that hurt a call inside a request with a deadline. No
 * client-wide retry quota: the SDK's (500 tokens, 14 a retry, 1 back a success) ran dry after a few
 * hundred calls at a 30 % failure rate and then let no call retry, so a third of the chaos run's
 * requests answered 503 (a container serves one request at a time: its attempts are bounded by
 * the client's, not by a quota). And DynamoDB's short waits (RETRY_BASE_MS) in place of the SDK's
 * 50 ms and 1 s, which a call that is answered in milliseconds does not need.
 */
export class RequestRetries implements RetryStrategyV2 {
  constructor(
    private readonly maxAttempts: number,
    /** DynamoDB's: a retry is sent only when its attempt would end within the call's budget. */
    private readonly budget?: CallBudget,
  ) {}

  async acquireInitialRetryToken(): Promise<RetryToken> {
    return retryToken(0, 0, performance.now());
  }

  async refreshRetryTokenForRetry(token: RetryToken, { errorType }: RetryErrorInfo): Promise<RetryToken> {
    const retries = token.getRetryCount();
    if ((errorType !== 'TRANSIENT' && errorType !== 'THROTTLING') || retries + 1 >= this.maxAttempts) {
      throw new Error('no retry: the failure is not one to try again, or the attempts are spent');
    }
    const base = errorType === 'THROTTLING' ? RETRY_BASE_MS.throttling : RETRY_BASE_MS.transient;
    const delayMs = Math.floor(Math.random() * base * 2 ** retries);
    const { startedAt } = token as CallToken;
    // Fast failures (a reset, a 500, throttling) may use every attempt; slow ones (timeouts) spend the budget first.
    if (this.budget && performance.now() - startedAt + delayMs + this.budget.retryTimeoutMs > this.budget.budgetMs) {
      throw new Error('no retry: another attempt would end past the call’s budget');
    }
    return retryToken(retries + 1, delayMs, startedAt);
  }

  recordSuccess(): void {}
}

/**
 * The most a DynamoDB call's attempts may take: what its first attempt and two retries take when
 * each times out, with their backoff. Within it a call retries fast failures (a reset, a 500,
 * throttling) up to DYNAMODB_MAX_ATTEMPTS; a table that stalls every attempt is given up on as
 * soon as with three attempts.
 */
export function dynamodbCallBudgetMs(config: Pick<AwsConfig, 'dynamodbFirstAttemptTimeoutMs' | 'dynamodbTimeoutMs'>): number {
  const backoffMs = RETRY_BASE_MS.throttling * (1 + 2);
  return config.dynamodbFirstAttemptTimeoutMs + 2 * config.dynamodbTimeoutMs + backoffMs;
}

interface ServiceSettings {
  endpoint: string | undefined;
  timeoutMs: number;
  /** The first attempt's timeout, when shorter than the others'. */
  firstAttemptMs?: number;
  maxAttempts: number;
  /** The most all attempts of a call may take (DynamoDB's); without it, only the attempts bound a call. */
  budgetMs?: number;
}

function settingsOf(config: AwsConfig, service: AwsService): ServiceSettings {
  switch (service) {
    case 'dynamodb':
      return {
        endpoint: config.dynamodbEndpoint,
        timeoutMs: config.dynamodbTimeoutMs,
        firstAttemptMs: config.dynamodbFirstAttemptTimeoutMs,
        maxAttempts: config.dynamodbMaxAttempts,
        budgetMs: dynamodbCallBudgetMs(config),
      };
    case 'sns':
      return { endpoint: config.sms.snsEndpoint, timeoutMs: config.sms.timeoutMs, maxAttempts: config.sms.maxAttempts };
    // Queuing a text takes what sending one did: the same budget inside the request.
    case 'sqs':
      return { endpoint: config.sms.sqsEndpoint, timeoutMs: config.sms.timeoutMs, maxAttempts: config.sms.maxAttempts };
    // The publisher's EventBridge and dead-letter queue: one emulator locally; its own retries of
    // partly failed batches come on top of the SDK's attempts (lib/events/publisher.ts).
    case 'events':
      return { endpoint: config.events?.endpoint, timeoutMs: config.events?.timeoutMs ?? 2000, maxAttempts: 3 };
    case 'ssm':
      return { endpoint: config.ssmEndpoint, timeoutMs: config.ssmTimeoutMs, maxAttempts: config.ssmMaxAttempts };
  }
}

/**
 * Sends each attempt with its own time limit: the first one `firstAttemptMs`, a retry the whole
 * timeout. The retry middleware numbers each attempt in the `amz-sdk-request` header it sends.
 */
class AttemptTimeouts extends NodeHttpHandler {
  constructor(
    private readonly firstAttemptMs: number,
    timeoutMs: number,
  ) {
    super({ connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true });
  }

  override handle(...[request, options = {}]: Parameters<NodeHttpHandler['handle']>): ReturnType<NodeHttpHandler['handle']> {
    const first = /^attempt=1;/.test(request.headers['amz-sdk-request'] ?? '');
    return super.handle(request, first ? { ...options, requestTimeout: this.firstAttemptMs } : options);
  }
}

/**
 * A client of one AWS service, e.g. `awsClient(SNSClient, config, 'sns')`. Each attempt is
 * abandoned after the service's timeout (throwOnRequestTimeout: without it the SDK only logs a
 * warning and keeps waiting), so a stuck service costs at most its attempts and their backoff;
 * DynamoDB's first attempt sooner (DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS).
 */
export function awsClient<Client>(Client: new (options: AwsClientOptions) => Client, config: AwsConfig, service: AwsService): Client {
  const { endpoint, timeoutMs, firstAttemptMs, maxAttempts, budgetMs } = settingsOf(config, service);
  return new Client({
    region: config.region,
    ...(endpoint ? { endpoint } : {}),
    ...(config.dummyCredentials ? { credentials: DUMMY_CREDENTIALS } : {}),
    maxAttempts,
    retryStrategy: new RequestRetries(maxAttempts, budgetMs === undefined ? undefined : { budgetMs, retryTimeoutMs: timeoutMs }),
    requestHandler:
      firstAttemptMs !== undefined && firstAttemptMs < timeoutMs
        ? new AttemptTimeouts(firstAttemptMs, timeoutMs)
        : new NodeHttpHandler({ connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true }),
  });
}
