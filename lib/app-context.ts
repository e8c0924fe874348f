import type { Clock, Timer } from './clock.js';
import type { ActiveCompanies } from './companies/companies.js';
import type { Config } from './config.js';
import type { Logger } from './observability/logger.js';
import type { Metrics } from './observability/metrics.js';
import type { HashCost } from './secrets/hashing.js';
import type { ServerKeys } from './secrets/server-keys.js';
import type { SigningKeys } from './secrets/signing-keys.js';
import type { SmsQueue } from './sms/sms-queue.js';
import type { SendText } from './sms/sms-sender.js';
import type { FullSendShards } from './store/full-send-shards.js';
import type { Table } from './store/table.js';

// What every capability is handed: the service's shared parts, named by their types only. The
// composition root (lib/app.ts) builds them; a capability imports this, never the root, so the
// root sits on top and imports what it builds.

export interface App {
  config: Config;
  clock: Clock;
  timer: Timer;
  logger: Logger;
  metrics: Metrics;
  table: Table;
  keys: ServerKeys;
  /** The access tokens' signing and verifying keys (API contract 3.12). */
  signingKeys: SigningKeys;
  companies: ActiveCompanies;
  /** Sends a text message: through SNS, or into the local outbox (config.sms.sender). */
  sms: SendText;
  /** The company send-counter shards this container found full (lib/otp/send-limits.ts). */
  fullSendShards: FullSendShards;
  /** A queue of texts handed in by a test; otherwise lib/sms/sms-delivery.ts builds one from the configuration. */
  smsQueue?: SmsQueue | undefined;
  /** The scrypt settings new password and PIN hashes are made with (a stored hash names its own). */
  hashCost: HashCost;
}
