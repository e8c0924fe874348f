import { NodeHttpHandler } from '@smithy/node-http-handler';
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
  requestHandler: NodeHttpHandler;
}

function settingsOf(config: AwsConfig, service: AwsService): { endpoint: string | undefined; timeoutMs: number; maxAttempts: number } {
  switch (service) {
    case 'dynamodb':
      return { endpoint: config.dynamodbEndpoint, timeoutMs: config.dynamodbTimeoutMs, maxAttempts: config.dynamodbMaxAttempts };
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
 * A client of one AWS service, e.g. `awsClient(SNSClient, config, 'sns')`. Each attempt is
 * abandoned after the service's timeout (throwOnRequestTimeout: without it the SDK only logs a
 * warning and keeps waiting), so a stuck service costs at most its attempts and their backoff.
 */
export function awsClient<Client>(Client: new (options: AwsClientOptions) => Client, config: AwsConfig, service: AwsService): Client {
  const { endpoint, timeoutMs, maxAttempts } = settingsOf(config, service);
  return new Client({
    region: config.region,
    ...(endpoint ? { endpoint } : {}),
    ...(config.dummyCredentials ? { credentials: DUMMY_CREDENTIALS } : {}),
    maxAttempts,
    requestHandler: new NodeHttpHandler({ connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true }),
  });
}
