// npm run accounts:erase -- --company ID
// Runs the eraser now for one company (API contract 3.11): every account of the company whose
// erasure is due (ACCOUNT_ERASE_AFTER_DAYS after its deletion; with 0, every deleted account) is
// erased, as the scheduled accountsErase function does. Prints {"company_id", "erased", "failed"}
// as the last line of stdout; exit 1 when any erasure failed. Same configuration as company:create.
import { parseArgs } from 'node:util';
import { eraseDueAccounts } from '../lib/account/erasure.js';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { type OperatorIo, operatorApp, runIfMain } from './operator-app.js';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  let values: { company?: string };
  try {
    values = parseArgs({ args: argv, options: { company: { type: 'string' } } }).values;
  } catch {
    values = {};
  }
  const companyId = values.company?.trim().toLowerCase() ?? '';
  if (!HEX_ID_PATTERN.test(companyId)) {
    io.err('usage: npm run accounts:erase -- --company <company id> (32 hex characters)');
    return 2;
  }
  const app = operatorApp(io);
  try {
    // An operator's run has no deadline: it goes on until the company's due list is done.
    const outcome = await eraseDueAccounts(app, { companyId, timeLeftMs: () => Number.POSITIVE_INFINITY });
    io.err(`${outcome.erased} account(s) erased${outcome.failed ? `, ${outcome.failed} failed (see the log)` : ''}`);
    io.out(JSON.stringify({ company_id: companyId, erased: outcome.erased, failed: outcome.failed }));
    return outcome.failed ? 1 : 0;
  } catch (error) {
    io.err(`could not run the eraser: ${(error as Error).message}`);
    return 1;
  }
  // No metrics published: EMF lines count only in a function's CloudWatch log, and on stdout they
  // would follow the command's result (its last line). The result says what was erased.
}

await runIfMain(import.meta.url, main);
