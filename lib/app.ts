import type { App } from './app-context.js';
import { type Clock, systemClock, systemTimer, type Timer } from './clock.js';
import { ActiveCompanies } from './companies/companies.js';
import type { Config } from './config.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { type HashCost, PRODUCTION_HASH_COST } from './secrets/hashing.js';
import { type CompareSecrets, configuredSecret, fileSecret, type SecretSource, ServerKeys } from './secrets/server-keys.js';
import { configuredKeySet, fileKeySet, type KeySetSource, publicKeySet, SigningKeys, ssmKeySet } from './secrets/signing-keys.js';
import { type ParameterReader, ssmParameters, ssmSecret } from './secrets/ssm-secret.js';
import type { SmsQueue } from './sms/sms-queue.js';
import { createSmsSender, type SendText } from './sms/sms-sender.js';
import { FullSendShards } from './store/full-send-shards.js';
import { createTable } from './store/table.js';

// The composition root: a configuration in, the service's shared parts out. Each function
// builds one at module scope (once per container); tests and scripts build their own from a
// configuration of their own, so nothing depends on what was imported first. It sits on top:
// capabilities take the App type from lib/app-context.ts, never from here.

export type { App };

/**
 * Parts a test or script may supply instead of the ones built from the configuration (as
 * supabase/auth's API options do): every part not handed in is built from the configuration.
 */
export interface AppParts {
  clock?: Clock;
  timer?: Timer;
  logger?: Logger;
  secretSource?: SecretSource;
  /** Where the access tokens' signing keys come from (lib/secrets/signing-keys.ts). */
  signingKeySources?: SigningKeySources;
  /** The constant-time comparison every secret check uses (ServerKeys.equal). */
  compareSecrets?: CompareSecrets;
  sms?: SendText;
  smsQueue?: SmsQueue;
  /**
   * The scrypt settings for new password and PIN hashes; production's unless handed in. Only tests
   * not about hashing hand in cheaper ones: no setting of the environment reaches this.
   */
  hashCost?: HashCost;
}

export function createApp(config: Config, parts: AppParts = {}): App {
  const clock = parts.clock ?? systemClock;
  const table = createTable(config);
  const logger = parts.logger ?? createLogger(config.logLevel);
  // One SSM client for every parameter a function reads, made on first use.
  let ssm: ParameterReader | undefined;
  const ssmReader: ParameterReader = (selector) => {
    ssm ??= ssmParameters(config, clock);
    return ssm(selector);
  };
  return {
    config,
    clock,
    timer: parts.timer ?? systemTimer,
    logger,
    metrics: createMetrics(logger),
    table,
    keys: new ServerKeys(parts.secretSource ?? secretSource(config, ssmReader), {
      versionsKept: config.secretVersionsKept,
      clock,
      compare: parts.compareSecrets,
    }),
    signingKeys: new SigningKeys(parts.signingKeySources ?? signingKeySources(config, ssmReader), config.accessTokenTtlSeconds, clock, {
      algorithm: config.accessTokenAlg,
      logger,
    }),
    companies: new ActiveCompanies(table, clock, config.companyCacheSeconds),
    sms: parts.sms ?? createSmsSender(config),
    fullSendShards: new FullSendShards(),
    smsQueue: parts.smsQueue,
    hashCost: parts.hashCost ?? PRODUCTION_HASH_COST,
  };
}

/**
 * Where the server secret comes from: the environment (tests, scripts), else a local file
 * (npm start), else SSM Parameter Store (a deployed stage). With none, every call that needs it
 * answers 503 and the log says why.
 */
function secretSource(config: Config, ssm: ParameterReader): SecretSource {
  if (config.serverSecret) return configuredSecret(config.serverSecret);
  if (config.serverSecretFile) return fileSecret(config.serverSecretFile);
  if (config.serverSecretParameter) return ssmSecret(config, ssm);
  return configuredSecret(undefined);
}

export interface SigningKeySources {
  private: KeySetSource;
  public: KeySetSource;
}

/**
 * Where the signing keys come from, as the server secret does: the environment (tests, scripts),
 * else a local file (npm start), else SSM (a deployed stage: the private set and the public set
 * are two parameters, so a function that only verifies never reads a private key).
 */
function signingKeySources(config: Config, ssm: ParameterReader): SigningKeySources {
  if (config.signingKeys) {
    const configured = configuredKeySet(config.signingKeys);
    return { private: configured, public: async () => publicKeySet(await configured()) };
  }
  if (config.signingKeysFile)
    return { private: fileKeySet(config.signingKeysFile), public: fileKeySet(config.signingKeysFile, { publicOnly: true }) };
  if (config.signingKeysParameter && config.signingPublicKeysParameter) {
    return { private: ssmKeySet(ssm, config.signingKeysParameter), public: ssmKeySet(ssm, config.signingPublicKeysParameter) };
  }
  const none = configuredKeySet(undefined);
  return { private: none, public: none };
}
