import { defineConfig } from 'vitest/config';

/** Measures a burst of concurrent HTTP requests on this machine's cores: run alone, after the rest. */
const ALONE = ['tests/e2e/burst-over-http.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['tests/setup/dynamodb-local.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: scrypt-heavy files side by side would only queue on the same CPUs.
    maxWorkers: 2,
    // Node 20 runs the tests; Lambda runs Node 22, which the AWS SDK's warning asks for.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'service', include: ['tests/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'burst', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
