import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { CLIENT_UNIT_TESTS, shared, UNIT_TESTS, unitProject } from './vitest.unit.config.js';

/**
 * Measure bursts of concurrent HTTP requests, and the SMS queue's pace, on this machine's cores: run alone, after the rest, one by one.
 * It uses the run's shared serverless-offline, which nothing else calls by then.
 */
const ALONE = [
  'tests/e2e/burst-over-http.test.ts',
  'tests/e2e/registration-burst-over-http.test.ts',
  'tests/e2e/sms-queue-over-http.test.ts',
];

/**
 * The longest files of the main group (each 10 s to 50 s, mostly waiting on a server or a linter)
 * start first, so that the short ones fill in beside them: a fresh clone has no timings cached, and
 * by size alone the README walk-through (a small file, the longest run) started last and ran alone.
 * The packaged stages' files are not among them: packaging starts with the run
 * (tests/setup/shared-package.ts) and is ready by the time they come.
 */
const LONGEST_FIRST = [
  'tests/docs/readme-walkthrough.test.ts',
  'tests/hardening/faults.test.ts',
  'tests/e2e/operations-over-http.test.ts',
  'tests/e2e/deadline-over-http.test.ts',
  'tests/e2e/rs256-tokens-over-http.test.ts',
  'tests/hardening/hostile-input.test.ts',
  'tests/hardening/chaos.test.ts',
  'tests/otp/answer-time.test.ts',
  'tests/deploy/function-permissions.test.ts',
  'tests/events/events.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

// The whole suite (`npm test`): every tier. The first (`npm run test:unit`, vitest.unit.config.ts)
// needs nothing running; the others get DynamoDB Local, the shared serverless-offline and the
// packaged stages from the global setups below.
export default defineConfig({
  test: {
    // Run once per run, by the root project, whichever projects run; every project sees what it provides.
    // The run's temp folder first: its teardown, last, removes what the others left there.
    globalSetup: [
      'tests/setup/run-temp-folder.ts',
      'tests/setup/dynamodb-local.ts',
      'tests/setup/shared-offline.ts',
      'tests/setup/shared-package.ts',
    ],
    // Two cores: scrypt-heavy files side by side would only queue on the same CPUs.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      { test: { ...unitProject.test, sequence: { groupOrder: 0 } } },
      {
        test: {
          ...shared,
          name: 'service',
          include: ['tests/**/*.test.ts'],
          exclude: [...UNIT_TESTS, ...ALONE],
          sequence: { groupOrder: 0 },
        },
      },
      // The client library's own tests (client/tests) against the same shared service.
      // Its examples import the package by name, as an app would.
      {
        resolve: { alias: { '@wallet-auth/client': resolve(import.meta.dirname, 'client/src/index.ts') } },
        test: {
          ...shared,
          name: 'client',
          include: ['client/tests/**/*.test.ts'],
          exclude: CLIENT_UNIT_TESTS,
          sequence: { groupOrder: 0 },
        },
      },
      // One file at a time: two bursts side by side would each measure the other.
      { test: { ...shared, name: 'burst', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
