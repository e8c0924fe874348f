import { defineConfig } from 'vitest/config';

/**
 * Measure bursts of concurrent HTTP requests, and the SMS queue's pace, on this machine's cores: run alone, after the rest, one by one.
 * It uses the run's shared serverless-offline, which nothing else calls by then.
 */
const ALONE = [
  'tests/e2e/burst-over-http.test.ts',
  'tests/e2e/registration-burst-over-http.test.ts',
  'tests/e2e/sms-queue-over-http.test.ts',
];

/** What both projects run with. Not `extends: true`: a project that extends the root inherits its globalSetup and runs it again. */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Files of a worker share one process and its loaded modules: a fresh process per file spent
  // about 1.7 s of CPU importing the same modules again (30 s of 57 over 16 files; no file relies
  // on module state of its own: each builds its own App).
  isolate: false,
  // Node 20 runs the tests; Lambda runs Node 22, which the AWS SDK's warning asks for.
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
};

export default defineConfig({
  test: {
    // Run once per run, by the root project, whichever projects run; both see what it provides.
    globalSetup: ['tests/setup/dynamodb-local.ts', 'tests/setup/shared-offline.ts', 'tests/setup/shared-package.ts'],
    // Two cores: scrypt-heavy files side by side would only queue on the same CPUs.
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'service', include: ['tests/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      // One file at a time: two bursts side by side would each measure the other.
      { test: { ...shared, name: 'burst', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
