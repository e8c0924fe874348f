import { randomBytes } from 'node:crypto';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import type { InProcessService } from '../../tests/harness/in-process-service.js';
import type { ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios of POST /wallet/v3/auth/token/refresh (API contract 3.12), on sessions
// no other scenario uses: a refresh token spent for a new pair (without and with an
// Idempotency-Key), the spent one presented again within the grace (its successor again) and past
// it (reuse: the session ends with a notice), and a
// well-formed token no session holds.

const REFRESH = '/wallet/v3/auth/token/refresh';

/** A refresh token shaped as this service's (lib/sessions/refresh-tokens.ts) that it never issued. */
function madeUpRefreshToken(): string {
  const hex = () => randomBytes(16).toString('hex');
  const random = () => randomBytes(32).toString('base64url');
  return `${hex()}.${hex()}.1.1.${random()}.${random()}`;
}

/**
 * `refreshTokens` and `keyedRefreshTokens`: the first refresh token of as many live sessions as
 * the scenarios make calls, two sets, since the unkeyed sessions end in the reuse row.
 */
export async function runTokenRefreshScenarios(
  service: InProcessService,
  company: Company,
  sessions: { refreshTokens: string[]; keyedRefreshTokens: string[] },
  run: (spec: ScenarioSpec) => Promise<unknown>,
): Promise<void> {
  const { refreshTokens, keyedRefreshTokens } = sessions;
  const calls = refreshTokens.length;
  if (keyedRefreshTokens.length !== calls) throw new Error('the refresh scenarios need as many keyed sessions as unkeyed ones');
  const headers = { CompanyID: company.company_id };
  const refresh = (refreshToken: string, extra: Record<string, string> = {}) => ({
    path: REFRESH,
    headers: { ...headers, ...extra },
    body: { refresh_token: refreshToken },
  });
  const base = { endpoint: 'tokenRefresh' as const, handler: service.handlers.tokenRefresh, calls };

  // The clock stopped through the spends and their grace, so the grace row is within it however long the rows take.
  const spentAt = epochSeconds(service.clock);
  service.clock.freeze(spentAt);
  await run({ ...base, outcome: 'new pair', expectStatus: 200, event: (index) => refresh(refreshTokens[index]!) });
  // The tokens just spent, presented again within REFRESH_REUSE_GRACE_SECONDS (two refreshes at once, a lost answer): their successors again.
  await run({
    ...base,
    outcome: 'the token just spent, again within the grace',
    expectStatus: 200,
    event: (index) => refresh(refreshTokens[index]!),
  });
  // As the contract asks clients to send it: the answer is kept (sealed) for a replay.
  await run({
    ...base,
    outcome: 'new pair, with Idempotency-Key',
    expectStatus: 200,
    event: (index) => refresh(keyedRefreshTokens[index]!, { 'Idempotency-Key': `bench-refresh-${randomBytes(12).toString('hex')}` }),
  });
  // Past the grace, the tokens the first row spent, presented again: each ends its session and writes event 7.
  service.clock.freeze(spentAt + service.app.config.refreshReuseGraceSeconds + 1);
  try {
    await run({ ...base, outcome: 'reused token (session ended)', expectStatus: 401, event: (index) => refresh(refreshTokens[index]!) });
  } finally {
    service.clock.reset();
  }
  await run({ ...base, outcome: 'unknown token', expectStatus: 401, event: () => refresh(madeUpRefreshToken()) });
}
