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

const { values } = parseArgs({ options: { company: { type: 'string' } } });
const companyId = values.company?.trim().toLowerCase();
if (companyId !== undefined && !HEX_ID_PATTERN.test(companyId)) {
  console.error('usage: npm run secret:versions -- [--company <company id>] (32 hex characters)');
  process.exit(2);
}

const app = createApp(readConfig());
try {
  const versions = await countPinHashVersions(app, companyId);
  const old = Object.entries(versions.pin_hashes)
    .filter(([version]) => Number(version) < versions.current_version)
    .reduce((sum, [, count]) => sum + count, 0);
  console.error(
    `${old} PIN hash(es) in ${companyId ? `company ${companyId}` : `table ${app.table.name}`} use a version before ${versions.current_version}`,
  );
  console.log(JSON.stringify(versions));
} catch (error) {
  console.error(`could not count the PIN hashes: ${(error as Error).message}`);
  process.exit(1);
}
