import { randomBytes } from 'node:crypto';
import { type Config, type Environment, readConfig, type SigningAlgorithm } from '../../lib/config.js';
import { newKeySet } from '../../lib/secrets/signing-keys.js';

// The one description of the service's environment on this machine, for npm start, the tests,
// the bench, the load run and the fuzzer: DynamoDB Local, the SMS outbox, a server secret, signing keys, and
// no AWS credentials (the clients use dummy ones for a local endpoint, so nothing reaches AWS).

export interface LocalEnvironmentOptions {
  stage: string;
  dynamodbEndpoint: string;
  outboxFile: string;
  /** Default wallet-auth-<stage>. */
  tableName?: string;
  /** Default: a fresh random one, unless serverSecretFile is given. */
  serverSecret?: string;
  /** A file holding the secret instead (npm start's .data/server-secret, kept across restarts). */
  serverSecretFile?: string;
  /** A file holding the signing key set (npm start's .data/signing-keys.json); default: a fresh set in SIGNING_KEYS. */
  signingKeysFile?: string;
  logLevel?: string;
  /** Any other setting of lib/config.ts, by its variable name. */
  settings?: Environment;
}

const keySets = new Map<SigningAlgorithm, string>();

/**
 * One signing key set for every environment this process describes, as one deployment has one:
 * a token one service of a test made verifies in another. It signs from the epoch on, since a
 * test's clock may be set anywhere. One per algorithm: an environment with ACCESS_TOKEN_ALG=RS256
 * starts as an RS256 stage does, with an RSA key.
 */
function processKeySet(alg: SigningAlgorithm): string {
  if (!keySets.has(alg)) keySets.set(alg, JSON.stringify(newKeySet(0, alg)));
  return keySets.get(alg)!;
}

export function localEnvironment(options: LocalEnvironmentOptions): Record<string, string> {
  const environment: Environment = {
    STAGE: options.stage,
    TABLE_NAME: options.tableName ?? `wallet-auth-${options.stage}`,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    ...(options.serverSecretFile
      ? { SERVER_SECRET_FILE: options.serverSecretFile }
      : { SERVER_SECRET: options.serverSecret ?? randomBytes(32).toString('hex') }),
    ...(options.signingKeysFile
      ? { SIGNING_KEYS_FILE: options.signingKeysFile }
      : { SIGNING_KEYS: processKeySet(options.settings?.ACCESS_TOKEN_ALG === 'RS256' ? 'RS256' : 'ES256') }),
    AWS_REGION: 'us-east-1',
    SMS_SENDER: 'outbox',
    SMS_OUTBOX_FILE: options.outboxFile,
    // Published in the request, so a test reads its code as soon as the send answers;
    // SMS_DELIVERY=queue (settings) queues it in the process, as npm start can.
    SMS_DELIVERY: 'direct',
    LOG_LEVEL: options.logLevel ?? 'INFO',
    // Node 20 may run this; Lambda runs Node 22, which the SDK's warning asks for.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // As Lambda sets it: Powertools reports cold_start only for on-demand containers.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...options.settings,
  };
  return Object.fromEntries(Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The configuration the service reads from such an environment. */
export function localConfig(options: LocalEnvironmentOptions): Config {
  return readConfig(localEnvironment(options));
}
