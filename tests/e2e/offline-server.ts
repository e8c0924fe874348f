import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { type Environment, readConfig } from '../../lib/config.js';
import { PIN_SCRYPT } from '../../lib/secrets/hashing.js';
import type { OfflineService } from '../harness/offline-service.js';
import { type InProcessService, inProcessService, newCompany, TEST_HASH_COST } from '../helpers.js';
import type { SharedOffline } from '../setup/shared-offline.js';
import { type SecretPlacement, startTestOffline } from '../setup/test-environment.js';

export type { SecretPlacement };

/**
 * The in-process twin registers at the tests' cheap password cost (the service never checks a
 * password), and hashes PINs at production's, which the server checks them with: a cheap PIN hash
 * would be made again by its first right check over HTTP, a write the test did not ask for.
 */
const localService = (env: Record<string, string>) =>
  inProcessService(readConfig(env), { hashCost: { password: TEST_HASH_COST.password, pin: PIN_SCRYPT } });

export type OfflineServer = OfflineService & {
  /** The environment the server runs with; its outbox is `env.SMS_OUTBOX_FILE`. */
  env: Record<string, string>;
  /** The same service in this process (same table, secret and outbox): to set data up and read it back. */
  local: InProcessService;
};

/**
 * A server of the caller's own, with settings of its own (tests/setup/test-environment.ts
 * startTestOffline), serving the shared server's bundles (a bundle reads its settings at run time):
 * it builds none. The caller stops it.
 */
export async function startOffline(settings: Environment = {}, placement: SecretPlacement = { file: true }): Promise<OfflineServer> {
  const { handlers } = await sharedOfflineInfo();
  const { server, env } = await startTestOffline(inject('dynamodbEndpoint'), settings, placement, undefined, handlers);
  return Object.assign(server, { env, local: localService(env) });
}

/** The run's shared server as the global setup describes it, once it is ready (started by the first file that asks). */
async function sharedOfflineInfo(): Promise<SharedOffline> {
  const response = await fetch(inject('sharedOfflineUrl'));
  if (!response.ok) throw new Error(`the shared serverless-offline did not start: ${await response.text()}`);
  return (await response.json()) as SharedOffline;
}

/** The run's shared server (tests/setup/shared-offline.ts), started by the first file that asks; the global teardown stops it. */
async function sharedOffline(): Promise<OfflineServer> {
  const { baseUrl, lambdaUrl, env, outputFile, handlers } = await sharedOfflineInfo();
  return {
    baseUrl,
    lambdaUrl,
    handlers,
    env,
    local: localService(env),
    // Everything the server printed, for every file that used it.
    output: () => readFileSync(outputFile, 'utf8'),
    stop: async () => undefined,
  };
}

/** How long a file waits for its server: building every function took about 2 minutes at a load of 8 on 2 cores. */
export const OFFLINE_START_TIMEOUT_MS = 300_000;

/**
 * For a test file: the service over HTTP before its tests, with a company of the file's own.
 * With default settings, the run's shared server; with settings of its own, a server of the
 * file's own, stopped after its tests.
 */
export function useOfflineService(settings?: Environment): { server: OfflineServer; company: Company } {
  const fixture = {} as { server: OfflineServer; company: Company };
  beforeAll(async () => {
    fixture.server = settings ? await startOffline(settings) : await sharedOffline();
    fixture.company = await newCompany(fixture.server.local);
  }, OFFLINE_START_TIMEOUT_MS);
  afterAll(() => fixture.server?.stop());
  return fixture;
}
