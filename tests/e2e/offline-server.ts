import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { type Environment, readConfig } from '../../lib/config.js';
import { type OfflineService, startOfflineService } from '../../scripts/local/offline-service.js';
import { type InProcessService, inProcessService, newCompany, testEnvironment, testService } from '../helpers.js';

export type OfflineServer = OfflineService & {
  /** The environment the server runs with; its outbox is `env.SMS_OUTBOX_FILE`. */
  env: Record<string, string>;
  /** The same service in this process (same table, secret and outbox): to set data up and read it back. */
  local: InProcessService;
};

/** Where the server's secret is: a local file (as npm start's), or a parameter of an SSM endpoint (as a deployed stage's). */
export type SecretPlacement = { file: true } | { ssmEndpoint: string; parameter: string };

/**
 * The service under serverless-offline against the tests' DynamoDB Local (stage "test"), with
 * settings of its own. Its server secret is in a file (SERVER_SECRET_FILE), as npm start's is,
 * or in a fake SSM Parameter Store: serverless.yml puts no secret in any function's environment.
 */
export async function startOffline(settings: Environment = {}, placement: SecretPlacement = { file: true }): Promise<OfflineServer> {
  let env: Record<string, string>;
  let local: InProcessService;
  if ('file' in placement) {
    const secret = randomBytes(32).toString('hex');
    const secretFile = join(mkdtempSync(join(tmpdir(), 'wallet-secret-')), 'server-secret');
    writeFileSync(secretFile, secret, { mode: 0o600 });
    env = testEnvironment(settings, { serverSecretFile: secretFile });
    local = testService(settings, { outboxFile: env.SMS_OUTBOX_FILE, serverSecret: secret });
  } else {
    env = testEnvironment({ ...settings, SERVER_SECRET_PARAMETER: placement.parameter, SSM_ENDPOINT: placement.ssmEndpoint });
    delete env.SERVER_SECRET;
    local = inProcessService(readConfig(env));
  }
  const server = await startOfflineService({ stage: 'test', env });
  return Object.assign(server, { env, local });
}

/** For a test file: the service started before its tests and stopped after, with a company of its own. */
export function useOfflineService(settings: Environment = {}): { server: OfflineServer; company: Company } {
  const fixture = {} as { server: OfflineServer; company: Company };
  beforeAll(async () => {
    fixture.server = await startOffline(settings);
    fixture.company = await newCompany(fixture.server.local);
  }, 180_000);
  afterAll(() => fixture.server?.stop());
  return fixture;
}
