// npm run user:export -- --company ID --user USER_ID
// Everything the wallet holds about one user (API contract 3.11, the right of access), as GET
// /wallet/v3/user/export answers it to the user: one JSON object, the last line of stdout. Never
// a token, hash, PIN, key or code. Same configuration as company:create.
import { accountExport } from '../lib/account/export.js';
import { AppError } from '../lib/errors.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';
import { companyAndUserOptions } from './operator-options.js';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const options = companyAndUserOptions(argv);
  if (!options) {
    io.err('usage: npm run user:export -- --company <company id> --user <user id> (32 hex characters each)');
    return 2;
  }
  const { companyId, userId } = options;
  const app = operatorApp(io);
  try {
    io.out(JSON.stringify(await accountExport(app, companyId, userId)));
    return 0;
  } catch (error) {
    io.err(
      error instanceof AppError ? `no user ${userId} in company ${companyId}` : `could not export the user: ${(error as Error).message}`,
    );
    return 1;
  }
}

await runIfMain(import.meta.url, main);
