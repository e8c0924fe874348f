import { afterAll, beforeAll } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import type { Environment } from '../../lib/config.js';
import { type OfflineService, startOfflineService } from '../../scripts/local/offline-service.js';
import { type InProcessService, newCompany, testEnvironment, testService } from '../helpers.js';

export type OfflineServer = OfflineService & {
  /** The environment the server runs with; its outbox is `env.SMS_OUTBOX_FILE`. */
  env: Record<string, string>;
  /** The same service in this process (same table, secret and outbox): to set data up and read it back. */
  local: InProcessService;
};

/** The service under serverless-offline against the tests' DynamoDB Local (stage "test"), with settings of its own. */
export async function startOffline(settings: Environment = {}): Promise<OfflineServer> {
  const env = testEnvironment(settings);
  const server = await startOfflineService({ stage: 'test', env });
  const local = testService(settings, { outboxFile: env.SMS_OUTBOX_FILE, serverSecret: env.SERVER_SECRET });
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
