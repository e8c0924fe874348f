import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { expect } from 'vitest';
import { handler as register } from '../functions/user-register.js';
import { registerUserEndpoint } from '../lib/api/register-user-endpoint.js';
import { clock } from '../lib/clock.js';
import { createCompany, type Company } from '../lib/companies/companies.js';
import type { LambdaHttpHandler } from '../lib/http/api-handler.js';
import { toE164 } from '../lib/users/phone-number.js';
import { registrationBody } from '../lib/users/registration-input.js';
import { operatorPrincipal, registerUser } from '../lib/users/register-user.js';

/** A company of the test's own, so tests never see each other's data. */
export function newCompany(): Promise<Company> {
  return createCompany(`test company ${randomInt(1e9)}`);
}

/** A random national number that is valid for the dial code (by default a US number in area 202). */
export function randomPhoneNumber(dialCode = '+1', leading = '202', length = 10): string {
  for (;;) {
    let candidate = leading;
    while (candidate.length < length) candidate += String(randomInt(0, 10));
    if (toE164(dialCode, candidate)) return candidate;
  }
}

/** The seed's sample registration body (the document's example), with a fresh phone number and email. */
export function sampleRegistration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const phone = randomPhoneNumber();
  return { ...registerUserEndpoint.examples.request, phone_number: phone, email: `ada.${phone}@example.com`, ...overrides };
}

export interface EventInput {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: unknown;
  query?: Record<string, string>;
}

/** An API Gateway HTTP API (payload 2.0) event as Lambda receives it. */
export function httpEvent(input: EventInput): APIGatewayProxyEventV2 {
  const method = input.method ?? 'POST';
  const path = input.path ?? '/';
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(input.query ?? {}).toString(),
    headers: { 'content-type': 'application/json', ...input.headers },
    queryStringParameters: input.query,
    body: input.body === undefined ? undefined : typeof input.body === 'string' ? input.body : JSON.stringify(input.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: `req-${randomInt(1e9)}`,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

const context = { getRemainingTimeInMillis: () => 120_000, awsRequestId: 'test' } as unknown as Context;

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { success: 0 | 1; error: number[]; data: Record<string, any> };
}

/** Invokes a Lambda handler in process and parses its envelope. */
export async function invoke(handler: LambdaHttpHandler, input: EventInput): Promise<Answer> {
  const result = await handler(httpEvent(input), context);
  return {
    status: result.statusCode ?? 0,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: JSON.parse(result.body ?? 'null'),
  };
}

/** The messages in the local SMS outbox for one E.164 number, oldest first. */
export function outboxMessages(phoneE164: string, file = process.env.SMS_OUTBOX_FILE!): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { phone_number: string; message: string })
    .filter((entry) => entry.phone_number === phoneE164)
    .map((entry) => entry.message);
}

/** The code in the latest SMS to a number. */
export function lastCodeSentTo(phoneE164: string, file?: string): string {
  const message = outboxMessages(phoneE164, file).at(-1);
  const code = message?.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code was sent to ${phoneE164}`);
  return code;
}

/** Asserts a failure envelope with its status and error code. */
export function expectFailure(answer: Answer, status: number, code: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.success).toBe(0);
  expect(answer.body.error).toEqual([code]);
}

export interface Account {
  userId: string;
  referralCode: string;
  /** The Authorization header value of the account's token. */
  authorization: string;
  /** The registration body it was created with. */
  registration: Record<string, unknown>;
}

/** A customer registered through the registration endpoint. */
export async function signUp(company: Company, overrides: Record<string, unknown> = {}): Promise<Account> {
  const registration = sampleRegistration(overrides);
  const answer = await invoke(register, {
    path: '/wallet/v3/auth/user_register',
    headers: { CompanyID: company.company_id },
    body: registration,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const { user_id: userId, referral_code: referralCode, token } = answer.body.data;
  return { userId, referralCode, authorization: `Token ${token.token}`, registration };
}

/** An employee of the company, registered by an operator, with a working token. */
export async function newEmployee(company: Company): Promise<Account> {
  const registration = sampleRegistration({ user_type: 1, parent_user_id: undefined, referral_code: undefined, cretaed_by: undefined });
  const result = await registerUser(company, registrationBody.parse(registration), operatorPrincipal(company.company_id));
  return { userId: result.user_id, referralCode: result.referral_code, authorization: `Token ${result.token.token}`, registration };
}

const realNow = clock.now;

/** Moves the service's clock forward by some seconds from its current reading. */
export function advanceClock(seconds: number): void {
  const offset = clock.now() - Date.now() + seconds * 1000;
  clock.now = () => Date.now() + offset;
}

/** Stops the service's clock at an instant, so counted windows and hours do not drift. */
export function freezeClock(epochSeconds: number): void {
  clock.now = () => epochSeconds * 1000;
}

/** Gives the service its real clock back; for afterEach in files that move it. */
export function resetClock(): void {
  clock.now = realNow;
}
