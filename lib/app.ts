import { type Clock, systemClock } from './clock.js';
import { ActiveCompanies } from './companies/companies.js';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { configuredSecret, fileSecret, type SecretSource, ServerKeys } from './secrets/server-keys.js';
import { createTable, type Table } from './store/table.js';

// The composition root: a configuration in, the service's shared parts out. Each function
// builds one at module scope (once per container); tests and scripts build their own from a
// configuration of their own, so nothing depends on what was imported first.

export interface App {
  config: Config;
  clock: Clock;
  logger: Logger;
  table: Table;
  keys: ServerKeys;
  companies: ActiveCompanies;
}

/** Parts a test or script may supply instead of the ones built from the configuration. */
export interface AppParts {
  clock?: Clock;
  logger?: Logger;
  secretSource?: SecretSource;
}

export function createApp(config: Config, parts: AppParts = {}): App {
  const clock = parts.clock ?? systemClock;
  const table = createTable(config);
  return {
    config,
    clock,
    logger: parts.logger ?? createLogger(config.logLevel),
    table,
    keys: new ServerKeys(parts.secretSource ?? secretSource(config)),
    companies: new ActiveCompanies(table, clock, config.companyCacheSeconds),
  };
}

/** Where the server secret comes from: the environment (tests, scripts), else a local file (npm start). */
function secretSource(config: Config): SecretSource {
  if (!config.serverSecret && config.serverSecretFile) return fileSecret(config.serverSecretFile);
  return configuredSecret(config.serverSecret);
}
