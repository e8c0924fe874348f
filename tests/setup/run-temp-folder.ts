import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The prefix of a run's temp folder, under the temp folder the run found. */
export const RUN_TEMP_PREFIX = 'wallet-auth-test-run-';

// The first global setup: the run's temp folder is one of its own, removed at its end, after every
// server has stopped. The outboxes, secrets and server logs of each local server, DynamoDB Local's
// native library and each package’s staging go there (os.tmpdir() reads TMPDIR at each call, and
// the workers and every process they start inherit it): a whole run left about 70 entries behind.
export default function setup() {
  const before = process.env.TMPDIR;
  const folder = mkdtempSync(join(tmpdir(), RUN_TEMP_PREFIX));
  process.env.TMPDIR = folder;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(folder, { recursive: true, force: true });
  };
}
