// npm run user:disable -- --company ID --user USER_ID
// Disables a user (status_id 2, API contract 6) and ends every session of theirs in the same
// write; prints {"user_id", "status_id", "sessions_ended"} as its one line of stdout (the audit
// line and messages go to stderr). Same configuration as company:create.
import { disableUser } from '../lib/admin/user-status-set.js';
import { AppError } from '../lib/errors.js';
import { audit } from '../lib/observability/audit.js';
import { UserStatus } from '../lib/store/user-status.js';
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
    // Any status to 2, as ever, but for the company's last active admin (as the back office's disable).
    const ended = await disableUser(app, companyId, userId);
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
    if (error instanceof AppError && error.errorName === 'LAST_ADMIN') {
      io.err(`user ${userId} is the company's last active admin: make another employee admin first (npm run employee:create)`);
    } else {
      io.err(
        error instanceof AppError ? `no user ${userId} in company ${companyId}` : `could not disable the user: ${(error as Error).message}`,
      );
    }
    return 1;
  }
}

await runIfMain(import.meta.url, main);
