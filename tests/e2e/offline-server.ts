import { afterAll, beforeAll, inject } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { startOfflineService, type OfflineService } from '../../scripts/offline-service.js';
import { newCompany } from '../helpers.js';

export type OfflineServer = OfflineService;

/** The service under serverless-offline against the tests' DynamoDB Local and table (stage "test"). */
export function startOffline(extraEnv: Record<string, string> = {}): Promise<OfflineServer> {
  return startOfflineService({ stage: 'test', env: { DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), ...extraEnv } });
}

/** For a test file: the service started before its tests and stopped after, with a company of its own. */
export function useOfflineService(): { server: OfflineServer; company: Company } {
  const fixture = {} as { server: OfflineServer; company: Company };
  beforeAll(async () => {
    [fixture.server, fixture.company] = await Promise.all([startOffline(), newCompany()]);
  }, 180_000);
  afterAll(() => fixture.server?.stop());
  return fixture;
}
