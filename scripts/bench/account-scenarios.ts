import type { Company } from '../../lib/companies/companies.js';
import type { InProcessService } from '../../tests/harness/in-process-service.js';
import type { ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of the account (API contract 3.11): the profile, its update (names
// alone, a new email, an email another user holds) and the export, each by a registered customer
// with a live session: the registration's, SMS-strength, so that the names and the email wait
// (contract 3.15, second reading: a held change of kind profile, its warning texted).

const PROFILE = '/wallet/v3/user/profile';
const UPDATE = '/wallet/v3/user/profile/update';
const EXPORT = '/wallet/v3/user/export';

export async function runAccountScenarios(
  service: InProcessService,
  company: Company,
  authorizations: string[],
  /** The email each registered with. */
  registeredEmails: string[],
  run: (spec: ScenarioSpec) => Promise<unknown>,
): Promise<void> {
  const calls = authorizations.length;
  if (calls < 2) throw new Error('the account scenarios need at least 2 users');
  const headers = (index: number) => ({ CompanyID: company.company_id, Authorization: authorizations[index]! });
  const { userProfile, userProfileUpdate, userExport } = service.handlers;
  const email = (index: number) => `bench.account.${index}.${company.company_id}@example.com`;

  await run({
    endpoint: 'userProfile',
    handler: userProfile,
    calls,
    outcome: 'profile',
    expectStatus: 200,
    event: (index) => ({ method: 'GET', path: PROFILE, headers: headers(index) }),
  });
  const update = { endpoint: 'userProfileUpdate' as const, handler: userProfileUpdate, calls };
  await run({
    ...update,
    outcome: 'names held (an SMS-strength session)',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({ path: UPDATE, headers: headers(index), body: { first_name: 'Augusta', last_name: 'King' } }),
  });
  await run({
    ...update,
    outcome: 'email held, replacing the names (an SMS-strength session)',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({ path: UPDATE, headers: headers(index), body: { email: email(index) } }),
  });
  // Each asks for the email the next user registered with.
  await run({
    ...update,
    outcome: 'email taken (409, code 7)',
    expectStatus: 409,
    event: (index) => ({ path: UPDATE, headers: headers(index), body: { email: registeredEmails[(index + 1) % calls] } }),
  });
  await run({
    endpoint: 'userExport',
    handler: userExport,
    calls,
    outcome: 'held (an SMS-strength session)',
    smsPerCall: 1,
    expectStatus: 200,
    event: (index) => ({ method: 'GET', path: EXPORT, headers: headers(index) }),
  });
}
