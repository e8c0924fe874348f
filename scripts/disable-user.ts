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
import { operatorApp } from './operator-app.js';

const { values } = parseArgs({ options: { company: { type: 'string' }, user: { type: 'string' } } });
const companyId = values.company?.trim().toLowerCase() ?? '';
const userId = values.user?.trim().toLowerCase() ?? '';
if (!HEX_ID_PATTERN.test(companyId) || !HEX_ID_PATTERN.test(userId)) {
  console.error('usage: npm run user:disable -- --company <company id> --user <user id> (32 hex characters each)');
  process.exit(2);
}

const app = operatorApp();
try {
  const ended = await setStatusEndingSessions(app, companyId, userId, UserStatus.DISABLED);
  audit(app, undefined, 'sessions_revoked', {
    company_id: companyId,
    user_id: userId,
    outcome: 'user_disabled',
    revoked: ended,
    by: 'operator',
  });
  console.error(`user ${userId} disabled; ${ended} session(s) ended`);
  console.log(JSON.stringify({ user_id: userId, status_id: UserStatus.DISABLED, sessions_ended: ended }));
} catch (error) {
  console.error(
    error instanceof AppError ? `no user ${userId} in company ${companyId}` : `could not disable the user: ${(error as Error).message}`,
  );
  process.exit(1);
}
