// npm run user:disable -- --company ID --user USER_ID
// Disables a user (status_id 2, API contract 6) and ends every session of theirs in the same
// write; prints {"user_id", "status_id", "sessions_ended"} as its one line of stdout (the audit
// line and messages go to stderr). Same configuration as company:create.
import { parseArgs } from 'node:util';
import { AppError } from '../lib/errors.js';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { audit } from '../lib/observability/audit.js';
import { setStatusEndingSessions } from '../lib/sessions/end-sessions.js';
import { UserStatus } from '../lib/users/user-status.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { company: { type: 'string' }, user: { type: 'string' } } });
  const companyId = values.company?.trim().toLowerCase() ?? '';
  const userId = values.user?.trim().toLowerCase() ?? '';
  if (!HEX_ID_PATTERN.test(companyId) || !HEX_ID_PATTERN.test(userId)) {
    io.err('usage: npm run user:disable -- --company <company id> --user <user id> (32 hex characters each)');
    return 2;
  }

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
