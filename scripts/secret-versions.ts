// npm run secret:versions -- [--company ID]
// Counts the stored PIN hashes (login and transaction) by the version of the server secret they
// were made with, in one company or the whole table, and prints
// {"pin_hashes": {"<version>": n, ...}, "current_version", "oldest_kept", "oldest_in_use"} as its
// last line: after a rotation, how many PINs still rest on an older version (docs/operations.md,
// "Rotate"). Same configuration as company:create; reads the secret's current version.
import { parseArgs } from 'node:util';
import { createApp } from '../lib/app.js';
import { readConfig } from '../lib/config.js';
import { HEX_ID_PATTERN } from '../lib/ids.js';
import { countPinHashVersions } from '../lib/pins/pin-hashes.js';
import { type OperatorIo, runIfMain } from './operator-app.js';

export async function main(argv: string[], io: OperatorIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { company: { type: 'string' } } });
  const companyId = values.company?.trim().toLowerCase();
  if (companyId !== undefined && !HEX_ID_PATTERN.test(companyId)) {
    io.err('usage: npm run secret:versions -- [--company <company id>] (32 hex characters)');
    return 2;
  }

  const app = createApp(readConfig(io.env));
  try {
    const versions = await countPinHashVersions(app, companyId);
    const old = Object.entries(versions.pin_hashes)
      .filter(([version]) => Number(version) < versions.current_version)
      .reduce((sum, [, count]) => sum + count, 0);
    io.err(
      `${old} PIN hash(es) in ${companyId ? `company ${companyId}` : `table ${app.table.name}`} use a version before ${versions.current_version}`,
    );
    io.out(JSON.stringify(versions));
    return 0;
  } catch (error) {
    io.err(`could not count the PIN hashes: ${(error as Error).message}`);
    return 1;
  }
}

await runIfMain(import.meta.url, main);
