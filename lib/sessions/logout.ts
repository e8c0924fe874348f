import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { audit } from '../observability/audit.js';
import { SESSION_PREFIX, sessionKey } from '../store/keys.js';
import { endSession, endSessions, querySessions } from '../store/session-store.js';
import { sessionIsLive } from './access-tokens.js';
import type { LogoutCall } from './logout-input.js';
import type { LogoutResult } from './logout-result.js';

/**
 * Ends sessions of the caller (API contract 3.5): this one, every other one, or all. The other
 * sessions are found with one Query on the user's partition, so the work grows with that user's
 * sessions only. A session granted after the Query is not ended: it began after the logout.
 */
export async function logout(app: App, { body: input, principal, origin }: LogoutCall): Promise<LogoutResult> {
  const { companyId, userId, sessionId } = principal;
  if (input.scope === 'current') {
    const ended = await endSession(app.table, sessionKey(companyId, userId, sessionId), { reason: 'logout', atMs: app.clock.now() });
    const revoked = ended ? 1 : 0;
    audit(app, origin, 'logout', { company_id: companyId, user_id: userId, outcome: 'logged_out', scope: input.scope, revoked });
    return { message: 'Logged out', revoked };
  }
  const sessions = await querySessions(app.table, companyId, userId);
  const ending = input.scope === 'all' ? sessions : sessions.filter(({ key }) => key.sk !== `${SESSION_PREFIX}${sessionId}`);
  await endSessions(
    app.table,
    ending.map(({ key }) => key),
    { reason: 'logout_all', atMs: app.clock.now() },
  );
  // Expired sessions DynamoDB has not deleted yet go too, but only live ones count as ended.
  const now = epochSeconds(app.clock);
  const revoked = ending.filter(({ expiresAt, lastUsedAt }) =>
    sessionIsLive(expiresAt, lastUsedAt, now, app.config.sessionIdleSeconds),
  ).length;
  audit(app, origin, 'logout', { company_id: companyId, user_id: userId, outcome: 'logged_out', scope: input.scope, revoked });
  audit(app, origin, 'sessions_revoked', { company_id: companyId, user_id: userId, outcome: `logout_${input.scope}`, revoked });
  return { message: input.scope === 'all' ? 'Logged out of every session' : 'Logged out of every other session', revoked };
}
