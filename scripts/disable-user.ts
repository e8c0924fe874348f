// npm run user:disable -- --company ID --user USER_ID
// Disables a user (status_id 2, API contract 6) and ends every session of theirs in the same
// write; prints {"user_id", "status_id", "sessions_ended"} as its one line of stdout (the audit
// line and messages go to stderr). Same configuration as company:create.
import { AppError } from '../lib/errors.js';
import { audit } from '../lib/observability/audit.js';
import { setStatusEndingSessions } from '../lib/sessions/end-sessions.js';
import { UserStatus } from '../lib/users/user-status.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';
import { companyAndUserOptions } from './operator-options.js';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const options = companyAndUserOptions(argv);
  if (!options) {
    io.err('usage: npm run user:disable -- --company <company id> --user <user id> (32 hex characters each)');
    return 2;
  }
  const { companyId, userId } = options;

  const app = operatorApp(io);
  try {
    const ended = await setStatusEndingSessions(app, companyId, userId, UserStatus.DISABLED);
    audit(app, undefined, 'sessions_revoked', {
      company_id: companyId,
      user_id: userId,
      outcome: 'user_disabled',
      revoked: ended,
      by: 'operator',
    });
    io.err(`user ${userId} disabled; ${ended} session(s) ended`);
    io.out(JSON.stringify({ user_id: userId, status_id: UserStatus.DISABLED, sessions_ended: ended }));
    return 0;
  } catch (error) {
    io.err(
      error instanceof AppError ? `no user ${userId} in company ${companyId}` : `could not disable the user: ${(error as Error).message}`,
    );
    return 1;
  }
}

await runIfMain(import.meta.url, main);
