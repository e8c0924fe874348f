import { createRequire } from 'node:module';

const { useOwnTempFolder } = createRequire(import.meta.url)('../../serverless/zip-staging.cjs') as {
  useOwnTempFolder: (prefix: string) => () => void;
};

/** The prefix of a run's temp folder, under the temp folder the run found. */
export const RUN_TEMP_PREFIX = 'wallet-auth-test-run-';

// The first global setup: the run's temp folder is one of its own, removed at its end, after every
// server has stopped. The outboxes, secrets and server logs of each local server, DynamoDB Local's
// native library and each package's staging go there (the workers and every process they start
// inherit TMPDIR): a whole run left about 70 entries behind.
export default function setup() {
  return useOwnTempFolder(RUN_TEMP_PREFIX);
}
