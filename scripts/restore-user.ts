// npm run user:restore -- --company ID --user USER_ID
// Undoes a user's deletion before its erasure (API contract 3.11): status_id 1 again, the phone
// and email claims taken back, the erasure no longer due. Refused (exit 1, saying which) when
// someone registered the phone or email meanwhile, or when the user is not awaiting erasure.
// Prints {"user_id", "status_id"} as the last line of stdout. Same configuration as company:create.
import { RestoreRefused, restoreUser } from '../lib/account/restore.js';
import { AppError } from '../lib/errors.js';
import { audit } from '../lib/observability/audit.js';
import { UserStatus } from '../lib/store/user-status.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';
import { companyAndUserOptions } from './operator-options.js';

const REFUSALS = {
  not_deleted: 'is not awaiting erasure (never deleted, restored already, or erased)',
  erasure_due: 'is past its erase_after: the erasure is due and is no longer undone',
  phone_taken: 'cannot be restored: another user registered the phone number since the deletion',
  email_taken: 'cannot be restored: another user registered the email since the deletion',
} as const;

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const options = companyAndUserOptions(argv);
  if (!options) {
    io.err('usage: npm run user:restore -- --company <company id> --user <user id> (32 hex characters each)');
    return 2;
  }
  const { companyId, userId } = options;
  const app = operatorApp(io);
  try {
    await restoreUser(app, companyId, userId);
    audit(app, undefined, 'account_restored', { company_id: companyId, user_id: userId, outcome: 'restored', by: 'operator' });
    io.err(`user ${userId} restored`);
    io.out(JSON.stringify({ user_id: userId, status_id: UserStatus.ACTIVE }));
    return 0;
  } catch (error) {
    if (error instanceof RestoreRefused) {
      io.err(`user ${userId} ${REFUSALS[error.reason]}`);
      io.out(JSON.stringify({ user_id: userId, restored: false, reason: error.reason }));
      return 1;
    }
    io.err(
      error instanceof AppError ? `no user ${userId} in company ${companyId}` : `could not restore the user: ${(error as Error).message}`,
    );
    return 1;
  }
}

await runIfMain(import.meta.url, main);
