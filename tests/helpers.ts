import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect, inject } from 'vitest';
import type { AppParts } from '../lib/app.js';
import { HOUR_SECONDS } from '../lib/clock.js';
import type { Company } from '../lib/companies/companies.js';
import { type Environment, readConfig } from '../lib/config.js';
import { StatusNames } from '../lib/errors.js';
import type { HashCost } from '../lib/secrets/hashing.js';
import { companySendLimitKey } from '../lib/store/keys.js';
import type { LocalEnvironmentOptions } from './harness/environment.js';
import { type Answer, codeIn, type InProcessService, inProcessService, invoke, outboxMessages } from './harness/in-process-service.js';

export * from './harness/in-process-service.js';

import type { OperatorMain } from '../scripts/operator-app.js';
import { serviceEnvironment, TEST_TABLE } from './setup/test-environment.js';

export { TEST_TABLE };

/** The service's environment in the tests: DynamoDB Local of this run, an outbox of its own. */
export function testEnvironment(settings: Environment = {}, options: Partial<LocalEnvironmentOptions> = {}): Record<string, string> {
  return serviceEnvironment(inject('dynamodbEndpoint'), settings, options);
}

/**
 * The cheapest scrypt (16 KiB, microseconds) for tests that are not about hashing: production's
 * costs about 0.3 s of CPU per registration. Every hash names its settings, so hashes of either
 * cost verify in any app. Tests about hashing hand in PRODUCTION_HASH_COST; the deployed
 * functions never see this (tests/secrets/hash-cost.test.ts).
 */
export const TEST_HASH_COST: HashCost = { password: { N: 16, r: 8, p: 1 }, pin: { N: 16, r: 8, p: 1 } };

/** The service in this process against the tests' DynamoDB Local, with settings of the test's own; TEST_HASH_COST unless handed another. */
export function testService(
  settings: Environment = {},
  options: Partial<LocalEnvironmentOptions> & Omit<AppParts, 'clock'> = {},
): InProcessService {
  const {
    logger,
    secretSource,
    signingKeySources,
    compareSecrets,
    timer,
    sms,
    smsQueue,
    hashCost = TEST_HASH_COST,
    ...environment
  } = options;
  return inProcessService(readConfig(testEnvironment(settings, environment)), {
    logger,
    secretSource,
    signingKeySources,
    compareSecrets,
    timer,
    sms,
    smsQueue,
    hashCost,
  });
}

/** The status an access token gets from an endpoint that requires one (the referral list): 200 while its session lives, else 401. */
export async function tokenStatus(service: InProcessService, company: Company, authorization: string): Promise<number> {
  const headers = { CompanyID: company.company_id, Authorization: authorization };
  return (await invoke(service.handlers.referralProgram, { method: 'GET', path: '/p', headers })).status;
}

/**
 * The start of the next clock hour (epoch seconds). A test that counts within an hour, or a
 * shorter window, freezes its service's clock at it plus an offset: no boundary falls inside the
 * test, wherever the wall clock is, and what was stored before is in the past.
 */
export function nextHourStart(): number {
  return (Math.floor(Date.now() / 1000 / HOUR_SECONDS) + 1) * HOUR_SECONDS;
}

/** The code in the latest SMS the service's outbox holds for a number. */
export function lastCodeSentTo(service: InProcessService, phoneE164: string): string {
  return codeIn(outboxMessages(service.app.config.sms.outboxFile, phoneE164).at(-1));
}

/** Asserts a failure envelope: its status, its one error code, the status name as message, and JSON. */
/**
 * A code or PIN as a value of its own in a text (a log, a stored item): a few digits occur by
 * chance inside ids, hashes and timestamps, so only a match not inside a longer word counts.
 */
export function standalone(digits: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z])${digits}(?![0-9A-Za-z])`);
}

/**
 * Ten wrong PINs sent at once, as the counted check answers them: five compared (17, with 4..0
 * tries left), and five that took no try: 18 once the fifth marked the lock, 503 code 16 (busy,
 * retry) while it was still in flight.
 */
export function expectFiveComparedFiveRefused(answers: { body: any }[]): void {
  const compared = answers.filter((answer) => answer.body.error[0] === 17);
  expect(compared.map((answer) => answer.body.data.attempts_left).sort()).toEqual([0, 1, 2, 3, 4]);
  expect(answers.filter((answer) => answer.body.error[0] === 18 || answer.body.error[0] === 16)).toHaveLength(5);
}

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

/** Items of a company's send-counter shards for one hour (any hour when undefined), as stored. */
export function companyHourShards<Item extends { pk: string; sk: string }>(items: Item[], companyId: string, hour?: number): Item[] {
  const shardPrefix = companySendLimitKey(companyId, 0, 0).pk.slice(0, -1);
  return items.filter((item) => item.pk.startsWith(shardPrefix) && (hour === undefined || item.sk === `HOUR#${hour}`));
}

/** The company's sends counted in an hour: the sum of its shards. */
export function companyHourSent(items: { pk: string; sk: string; sent?: unknown }[], companyId: string, hour?: number): number {
  return companyHourShards(items, companyId, hour).reduce((sum, item) => sum + Number(item.sent ?? 0), 0);
}

/**
 * Fills a company's hour up to `room` sends below its ceiling, spread over every shard the way
 * sends fill them. The shares are written out for the test environment's default, 1000 sends an
 * hour over 10 shards, not taken from the code under test (tests/scaling/company-send-shards.test.ts
 * checks its split).
 */
export async function fillCompanyHour(service: InProcessService, companyId: string, hour: number, room = 0): Promise<void> {
  const { table, config } = service.app;
  expect({ ceiling: config.otp.sendsPerCompanyPerHour, shards: config.otp.companySendShards }).toEqual({ ceiling: 1000, shards: 10 });
  await Promise.all(
    Array.from({ length: 10 }, (_, shard) => {
      // 100 a shard; the room left is taken off the first shards, one each.
      const sent = 100 - Math.floor(room / 10) - (shard < room % 10 ? 1 : 0);
      return table.client.send(new PutCommand({ TableName: table.name, Item: { ...companySendLimitKey(companyId, hour, shard), sent } }));
    }),
  );
}

/** A listed notification's fields as the seed's section 2.4 names them, sorted. */
export const SEED_NOTIFICATION_FIELDS = [
  'created_date',
  'id',
  'is_read',
  'notification_body',
  'notification_event_type',
  'notification_title',
  'notification_type',
  'updated_date',
  'user_id',
];

/** What an operator command did: its exit code, its stdout and stderr, and its last line of stdout as JSON. */
export interface OperatorOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** The last line of stdout as JSON (undefined when stdout is empty). */
  last: Record<string, any>;
}

/** Runs an operator command's main in this process, as npm would run it with this environment and standard input. */
export async function runOperator(
  main: OperatorMain,
  args: string[],
  env: Record<string, string | undefined> = testEnvironment(),
  input = '',
): Promise<OperatorOutcome> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(args, { env, out: (line) => stdout.push(line), err: (line) => stderr.push(line), input: async () => input });
  const last = stdout.at(-1);
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n'), last: last === undefined ? undefined : JSON.parse(last) };
}
