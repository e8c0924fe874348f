import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import type { AppParts } from '../lib/app.js';
import { type Environment, readConfig } from '../lib/config.js';
import { StatusNames } from '../lib/errors.js';
import type { SendText } from '../lib/sms/sms-sender.js';
import { type LocalEnvironmentOptions, localEnvironment } from '../scripts/local/environment.js';
import { type Answer, codeIn, type InProcessService, inProcessService, outboxMessages } from '../scripts/local/in-process-service.js';

export * from '../scripts/local/in-process-service.js';

import { TEST_TABLE } from './setup/dynamodb-local.js';

export { TEST_TABLE };

/** The service's environment in the tests: DynamoDB Local of this run, an outbox of its own. */
export function testEnvironment(settings: Environment = {}, options: Partial<LocalEnvironmentOptions> = {}): Record<string, string> {
  return localEnvironment({
    stage: 'test',
    tableName: TEST_TABLE,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    outboxFile: join(tmpdir(), `wallet-outbox-${randomUUID()}.jsonl`),
    ...(options.serverSecretFile ? {} : { serverSecret: '5e'.repeat(32) }),
    logLevel: 'WARN',
    ...options,
    settings: {
      // A loaded CI machine can stall DynamoDB Local for a moment; the fault tests set their own.
      DYNAMODB_TIMEOUT_MS: '3000',
      // A change to a company shows at once.
      COMPANY_CACHE_SECONDS: '0',
      // In process, one "container" serves many concurrent calls, which Lambda never does: the
      // function's deadline (10 s, tested on its own) would only make races flaky on 2 cores.
      FUNCTION_TIMEOUT_SECONDS: '60',
      // Every test calls from 127.0.0.1 and most send to Washington numbers (area 202): the
      // per-address and per-range limits are off but where a test sets them (tests/otp/fraud-guard.test.ts).
      OTP_SENDS_PER_ADDRESS_PER_HOUR: '0',
      OTP_VERIFIES_PER_ADDRESS: '0',
      OTP_SENDS_PER_PREFIX_PER_HOUR: '0',
      ...settings,
    },
  });
}

/** The service in this process against the tests' DynamoDB Local, with settings of the test's own. */
export function testService(
  settings: Environment = {},
  options: Partial<LocalEnvironmentOptions> & Omit<AppParts, 'clock'> & { sms?: SendText } = {},
): InProcessService {
  const { logger, secretSource, sms, ...environment } = options;
  return inProcessService(readConfig(testEnvironment(settings, environment)), { logger, secretSource, sms });
}

/** The code in the latest SMS the service's outbox holds for a number. */
export function lastCodeSentTo(service: InProcessService, phoneE164: string): string {
  return codeIn(outboxMessages(service.app.config.sms.outboxFile, phoneE164).at(-1));
}

/** Asserts a failure envelope: its status, its one error code, the status name as message, and JSON. */
export function expectFailure(answer: Answer, status: number, code: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ success: 0, error: [code], data: { message: StatusNames[status] } });
  expect(answer.headers['content-type']).toBe('application/json');
}

/** Asserts the answer to a dependency that is down, slow or throttling: 503, code 16, Retry-After. */
export function expectUnavailable(answer: Answer): void {
  expectFailure(answer, 503, 16);
  expect(answer.body).toEqual({ success: 0, error: [16], data: { message: 'SERVICE_UNAVAILABLE' } });
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
}
