import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, Context, SQSRecord } from 'aws-lambda';
import { accountsEraseHandler } from '../../functions/accounts-erase.js';
import { eventsPublishHandler } from '../../functions/events-publish.js';
import { handler as notFound } from '../../functions/not-found.js';
import { redeemAuthorizationHandler } from '../../functions/redeem-authorization.js';
import { smsSendHandler } from '../../functions/sms-send.js';
import { wellKnownHandler } from '../../functions/well-known.js';
import { endpoints, type FunctionName, type InvokedFunctionName, type OperationName } from '../../lib/api/endpoints.js';
import { userRegisterEndpoint } from '../../lib/api/user-register-endpoint.js';
import { type App, type AppParts, createApp } from '../../lib/app.js';
import { type Company, createCompany } from '../../lib/companies/companies.js';
import type { Config } from '../../lib/config.js';
import type { LambdaHttpHandler } from '../../lib/http/api-handler.js';
import type { InvokedHandler } from '../../lib/invoke/invoked-handler.js';
import type { QueueHandler } from '../../lib/invoke/queue-handler.js';
import type { StreamHandler } from '../../lib/invoke/stream-handler.js';
import { operatorRegistration, userRegister } from '../../lib/registration/user-register.js';
import { userRegisterBody } from '../../lib/registration/user-register-input.js';
import { toE164 } from '../../lib/users/phone-plan.js';
import { parseInput } from '../../lib/validation.js';
import { AdjustableClock } from './adjustable-clock.js';

// The service in this process, built from a configuration of the caller's own, as each function
// builds it in Lambda: for the tests, the bench and the fuzzer. Also the few actions they share
// (a company, an account, a request) and the seed's sample registration.

/** An endpoint's one name: its operationId and its function's key (lib/api/endpoints.ts). */
export type EndpointName = FunctionName;

export interface InProcessService {
  app: App;
  clock: AdjustableClock;
  handlers: Record<EndpointName, LambdaHttpHandler>;
  /** The functions with no HTTP route, as the Lambda API invokes them. */
  invoked: Record<InvokedFunctionName, InvokedHandler<unknown>>;
  /** The functions an SQS queue invokes. */
  queued: { smsSend: QueueHandler };
  /** The functions a schedule invokes. */
  scheduled: { accountsErase: ReturnType<typeof accountsEraseHandler> };
  /** The functions the table's stream invokes: built on first use, as only a service given a bus (EVENT_BUS_NAME) has one. */
  streamed: { readonly eventsPublish: StreamHandler };
  /** The discovery document and the JWKS (no CompanyID). */
  wellKnown: LambdaHttpHandler;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * Each operation's function, found by its one name in the route table (lib/api/endpoints.ts):
 * functions/<kebab-case name>.ts exports <name>Handler, built from an app. An endpoint added to
 * the table is served here with no edit of this file.
 */
const httpFunctions = Object.fromEntries(
  await Promise.all(
    (Object.keys(endpoints) as OperationName[]).map(async (name) => {
      const file = `functions/${kebab(name)}.ts`;
      const build = (await import(`../../functions/${kebab(name)}.ts`))[`${name}Handler`];
      if (typeof build !== 'function') throw new Error(`${file} exports no ${name}Handler`);
      return [name, build as (app: App) => LambdaHttpHandler] as const;
    }),
  ),
) as Record<OperationName, (app: App) => LambdaHttpHandler>;

/** parts.clock, when given, is shared: services built on one config and clock act as containers of one deployment. */
export function inProcessService(config: Config, parts: AppParts & { clock?: AdjustableClock } = {}): InProcessService {
  const clock = parts.clock ?? new AdjustableClock();
  const app = createApp(config, { clock, ...parts });
  let eventsPublish: StreamHandler | undefined;
  return {
    app,
    clock,
    handlers: {
      ...(Object.fromEntries(Object.entries(httpFunctions).map(([name, build]) => [name, build(app)])) as Record<
        OperationName,
        LambdaHttpHandler
      >),
      notFound: notFound,
    },
    invoked: {
      redeemAuthorization: redeemAuthorizationHandler(app),
    },
    scheduled: {
      accountsErase: accountsEraseHandler(app),
    },
    queued: {
      smsSend: smsSendHandler(app),
    },
    streamed: {
      get eventsPublish() {
        eventsPublish ??= eventsPublishHandler(app);
        return eventsPublish;
      },
    },
    wellKnown: wellKnownHandler(app),
  };
}

/** A queue function called with these bodies as one SQS batch; answers the ids to come again. */
export async function invokeQueued(handler: QueueHandler, messages: { messageId: string; body: string }[], remainingMs?: number) {
  const Records = messages.map(({ messageId, body }) => ({ messageId, body }) as SQSRecord);
  const { batchItemFailures } = await handler({ Records }, lambdaContext(remainingMs));
  return batchItemFailures.map((failure) => failure.itemIdentifier);
}

export interface EventInput {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: unknown;
  query?: Record<string, string>;
  sourceIp?: string;
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
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: input.sourceIp ?? '127.0.0.1', userAgent: 'in-process' },
      requestId: `req-${randomInt(1e9)}`,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

/** A Lambda context with plenty of time left; the function's own timeout still applies from the event's arrival. */
export function lambdaContext(remainingMs = 120_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'in-process',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:in-process',
    memoryLimitInMB: '1024',
    awsRequestId: `in-process-${randomInt(1e9)}`,
    logGroupName: '/aws/lambda/in-process',
    logStreamName: 'in-process',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { success: 0 | 1; error: number[]; data: Record<string, any> };
}

/** The session an Authorization value ("Token <access token>") names: its `sid` claim, the session item's id. */
export function sessionIdOf(authorization: string): string {
  const payload = authorization.replace(/^(Token|Bearer) /, '').split('.')[1] ?? '';
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sid: string }).sid;
}

/** Invokes a Lambda handler in process and parses its envelope. */
export async function invoke(handler: LambdaHttpHandler, input: EventInput): Promise<Answer> {
  const result = await handler(httpEvent(input), lambdaContext());
  return {
    status: result.statusCode ?? 0,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: JSON.parse(result.body ?? 'null'),
  };
}

/** A company of the caller's own, so runs never see each other's data. */
export function newCompany(service: InProcessService): Promise<Company> {
  return createCompany(service.app.table, service.clock, `company ${randomInt(1e9)}`);
}

/**
 * The numbers this process handed out: a number is given once, so two flows of a test (the chaos
 * run's, side by side) never send codes to one number, where the later send replaces the earlier's
 * code and the earlier's check fails as a wrong code (area 202 holds 8 million valid numbers: a
 * thousand random ones repeat one about once in 16 runs).
 */
const GIVEN_NUMBERS = new Set<string>();

/** A random national number that is valid for the dial code (by default a US number in area 202), not given before in this process. */
export function randomPhoneNumber(dialCode = '+1', leading = '202', length = 10): string {
  for (;;) {
    let candidate = leading;
    while (candidate.length < length) candidate += String(randomInt(0, 10));
    const e164 = toE164(dialCode, candidate);
    if (e164 && !GIVEN_NUMBERS.has(e164)) {
      GIVEN_NUMBERS.add(e164);
      return candidate;
    }
  }
}

/** The seed's sample registration body (the document's example), with a fresh phone number and email. */
export function sampleRegistration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const phone = randomPhoneNumber();
  return { ...userRegisterEndpoint.examples.request, phone_number: phone, email: `ada.${phone}@example.com`, ...overrides };
}

export interface Account {
  userId: string;
  referralCode: string;
  /** The Authorization header value of the account's token. */
  authorization: string;
  /** The refresh token its registration answered. */
  refreshToken: string;
  /** The registration body it was created with. */
  registration: Record<string, unknown>;
}

/** A customer registered through the registration endpoint. */
export async function signUp(service: InProcessService, company: Company, overrides: Record<string, unknown> = {}): Promise<Account> {
  const registration = sampleRegistration(overrides);
  const answer = await invoke(service.handlers.userRegister, {
    path: '/wallet/v3/auth/user_register',
    headers: { CompanyID: company.company_id },
    body: registration,
  });
  if (answer.status !== 200) throw new Error(`sign-up answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const { user_id: userId, referral_code: referralCode, token, refresh_token: refreshToken } = answer.body.data;
  return { userId, referralCode, authorization: `Token ${token.token}`, refreshToken, registration };
}

/** An employee of the company, registered by an operator, with a working token. */
export async function newEmployee(service: InProcessService, company: Company): Promise<Account> {
  const registration = sampleRegistration({ user_type: 1, parent_user_id: undefined, referral_code: undefined, cretaed_by: undefined });
  const input = await parseInput(userRegisterBody, registration);
  const result = await userRegister(service.app, operatorRegistration(company, input));
  return {
    userId: result.user_id,
    referralCode: result.referral_code,
    authorization: `Token ${result.token.token}`,
    refreshToken: result.refresh_token,
    registration,
  };
}

/** The messages in a local SMS outbox for one E.164 number, oldest first. */
export function outboxMessages(file: string, phoneE164: string): string[] {
  return outboxEntries(file, phoneE164).map((entry) => entry.message);
}

/** The outbox's texts to one phone, with when each was sent (ms since the epoch). */
export function outboxEntries(file: string, phoneE164: string): { message: string; sentAt: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { phone_number: string; message: string; sent_at: string })
    .filter((entry) => entry.phone_number === phoneE164)
    .map((entry) => ({ message: entry.message, sentAt: Date.parse(entry.sent_at) }));
}

/** What login_phone and verify_otp name a code by, as a client sends it: CodeTarget (lib/codes/otp-codes.ts) before E.164. */
export interface CodeTargetBody {
  dial_code: string;
  phone_number: string;
  user_type: number;
  otp_type: number;
}

/** The code in a text message. */
export function codeIn(message: string | undefined): string {
  const code = message?.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error('no code in the message');
  return code;
}

/** A phone proof (verification_token) for a number, got as a client gets one: a type-2 code sent to the outbox, then verified. */
export async function provePhone(
  service: InProcessService,
  company: Company,
  phoneNumber: string,
  options: { userType?: number; authorization?: string } = {},
): Promise<string> {
  const target: CodeTargetBody = { dial_code: '+1', phone_number: phoneNumber, user_type: options.userType ?? 2, otp_type: 2 };
  const headers = { CompanyID: company.company_id, ...(options.authorization ? { Authorization: options.authorization } : {}) };
  const sent = await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target });
  if (sent.status !== 200) throw new Error(`code not sent: ${JSON.stringify(sent.body)}`);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${phoneNumber}`).at(-1));
  const verified = await invoke(service.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: code } });
  if (verified.status !== 200) throw new Error(`code not verified: ${JSON.stringify(verified.body)}`);
  return verified.body.data.verification_token;
}

/** A session got by a login code (otp_type 1) sent to the outbox: the Authorization header value. */
export async function logIn(service: InProcessService, company: Company, account: Account): Promise<string> {
  const target: CodeTargetBody = {
    dial_code: '+1',
    phone_number: String(account.registration.phone_number),
    user_type: Number(account.registration.user_type ?? 2),
    otp_type: 1,
  };
  const headers = { CompanyID: company.company_id };
  const sent = await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target });
  if (sent.status !== 200) throw new Error(`login code not sent: ${JSON.stringify(sent.body)}`);
  const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  const verified = await invoke(service.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: code } });
  if (verified.status !== 200) throw new Error(`login code not verified: ${JSON.stringify(verified.body)}`);
  return `Token ${verified.body.data.token.token}`;
}
