import { randomInt } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { endpoints } from '../../lib/api/endpoints.js';
import { type Company, createCompany } from '../../lib/companies/companies.js';
import { ErrorCodes, StatusNames } from '../../lib/errors.js';
import type { Endpoint } from '../../lib/http/endpoint.js';
import { chainErrors } from '../../lib/http/middleware.js';
import { HEX_ID_PATTERN } from '../../lib/ids.js';
import { encodeCursor } from '../../lib/paging/list-cursor.js';
import { DPOP_PROOF_MAX_BYTES } from '../../lib/sessions/dpop-proofs.js';
import type { HostileFixture } from './hostile-input/fixture.js';
import type { HostileRequest } from './hostile-input/requests.js';
import {
  type Account,
  type EndpointName,
  httpEvent,
  type InProcessService,
  invoke,
  lambdaContext,
  newCompany,
  newEmployee,
  randomPhoneNumber,
  signUp,
} from './in-process-service.js';
import { employeeWithDevice, type StaffDevice } from './staff-members.js';
import {
  canonical,
  diffSnapshots,
  identityProblems,
  isUnchanged,
  type Snapshot,
  type SnapshotDiff,
  scanItems,
  snapshotOf,
} from './table-snapshot.js';

// The property every hostile request must satisfy, shared by the bounded test and scripts/fuzz.ts:
// the answer is the envelope with a documented status and code (never a 5xx), it names no
// other company's data and echoes no token, and a refusal changes nothing that is stored.
// The service should have a table of its own: every check scans it.

/**
 * The codes each endpoint documents (API contract, section 4): its own refusals and its chain's, as
 * the API document lists them (lib/api/openapi-document.ts), a 500 never.
 */
function documentedCodes(name: EndpointName): number[] {
  if (name === 'notFound') return [ErrorCodes.NOT_FOUND.code];
  const endpoint: Endpoint = endpoints[name];
  return [...chainErrors(endpoint), ...endpoint.errors]
    .filter((error) => error !== 'INTERNAL_ERROR')
    .map((error) => ErrorCodes[error].code);
}
const DOCUMENTED = new Map<number, number>(
  Object.values(ErrorCodes)
    .filter(({ code }) => code !== ErrorCodes.INTERNAL_ERROR.code)
    .map(({ code, status }) => [code, status]),
);

const prototypeShape = () =>
  [Object.prototype, Array.prototype, Function.prototype].map((proto) => Object.getOwnPropertyNames(proto).sort().join()).join('|');

export interface HostileSetup {
  service: InProcessService;
  fixture: HostileFixture;
  company: Company;
  other: Company;
  /** Ids and codes of each company, to find in answers that must not hold them. */
  secretsOf: { company: string[]; other: string[] };
  /** An admin of the company with a settled device, for the back office's live requests (npm run fuzz). */
  admin: { device: StaffDevice; employeeId: string };
}

/**
 * Two companies with a customer each, an employee, a live login code and signed cursors. The
 * company under test may have settings of its own (the long fuzz run lifts its SMS ceilings).
 */
export async function setUpHostileFixture(
  service: InProcessService,
  settings: Parameters<typeof createCompany>[3] = {},
): Promise<HostileSetup> {
  const [company, other] = await Promise.all([
    createCompany(service.app.table, service.clock, `company ${randomInt(1e9)}`, settings),
    newCompany(service),
  ]);
  const [customer, employee, outsider, admin] = await Promise.all([
    signUp(service, company),
    newEmployee(service, company),
    signUp(service, other),
    employeeWithDevice(service, company, 'admin'),
  ]);
  const phoneOf = (account: Account) => String(account.registration.phone_number);
  // A live login code, so wrong guesses meet a real code (and count tries on it).
  const sent = await invoke(service.handlers.loginPhone, {
    path: '/l',
    headers: { CompanyID: company.company_id },
    body: { dial_code: '+1', phone_number: phoneOf(customer), user_type: 2, otp_type: 1 },
  });
  if (sent.status !== 200) throw new Error(`fixture: login code not sent: ${JSON.stringify(sent.body)}`);
  const sortKey = `NOTIF#${String(Date.now()).padStart(15, '0')}#${'a'.repeat(32)}`;
  const token = (account: Account) => account.authorization.replace(/^Token /, '');
  const fixture: HostileFixture = {
    companyId: company.company_id,
    otherCompanyId: other.company_id,
    tokens: [customer, employee, outsider].map(token),
    userIds: [customer.userId, employee.userId, outsider.userId],
    phoneNumbers: [phoneOf(customer), phoneOf(employee), phoneOf(outsider), randomPhoneNumber()],
    cursors: await Promise.all([
      encodeCursor(service.app.keys, { list: 'referrals', companyId: company.company_id, userId: customer.userId }, sortKey),
      encodeCursor(service.app.keys, { list: 'referrals', companyId: other.company_id, userId: outsider.userId }, sortKey),
    ]),
  };
  return {
    service,
    fixture,
    admin: { device: admin.device, employeeId: admin.userId },
    company,
    other,
    secretsOf: {
      company: [company.company_id, customer.userId, employee.userId, customer.referralCode, employee.referralCode],
      other: [other.company_id, outsider.userId, outsider.referralCode],
    },
  };
}

type OutcomeCounts = Record<EndpointName, Record<string, number>>;

function emptyCounts(): OutcomeCounts {
  return {
    userRegister: {},
    devicesApprove: {},
    stepUp: {},
    passkeysRegisterOptions: {},
    passkeysRegister: {},
    passkeys: {},
    passkeysRemove: {},
    passkeysLoginOptions: {},
    passkeysLogin: {},
    userChangesCancel: {},
    userSecurityNotMe: {},
    adminEmployeeRole: {},
    adminEmployeesApprove: {},
    adminEmployeesDevicesApprove: {},
    adminApprovalsList: {},
    adminUsersSearch: {},
    adminUsersPhoneRecover: {},
    adminUsersPhoneApprove: {},
    adminUsersPhoneCancel: {},
    adminUsersSessionsEnd: {},
    adminUsersStatus: {},
    adminUsersDevicesRemove: {},
    adminUsersPasskeysRemove: {},
    adminUsersRestore: {},
    adminUsersView: {},
    adminCompanyView: {},
    adminCompanyUpdate: {},
    adminCompanyApprove: {},
    loginPhone: {},
    verifyOtp: {},
    referralProgram: {},
    loginPin: {},
    devices: {},
    devicesRemove: {},
    changePin: {},
    resetPin: {},
    notifications: {},
    notificationsRead: {},
    transactionAuthorization: {},
    logout: {},
    tokenRefresh: {},
    userProfile: {},
    userExport: {},
    userPhoneChange: {},
    userPhoneChangeCancel: {},
    userDelete: {},
    userProfileUpdate: {},
    notFound: {},
  };
}

/** The CompanyID the chain will see: header names lower-cased, the last of a name wins. */
/** The size of the DPoP header the chain reads (the last of its spellings, as API Gateway and normalizeHeaders keep it). */
function dpopBytes(request: HostileRequest): number {
  let value = '';
  for (const [name, headerValue] of Object.entries(request.headers)) if (name.toLowerCase() === 'dpop') value = headerValue;
  return Buffer.byteLength(value, 'utf8');
}

function effectiveCompanyId(headers: Record<string, string>): string | undefined {
  let value: string | undefined;
  for (const [name, headerValue] of Object.entries(headers)) if (name.toLowerCase() === 'companyid') value = headerValue;
  return value?.trim();
}

function bodyBytes(request: HostileRequest): number {
  if (request.body === undefined) return 0;
  const text = request.isBase64Encoded ? Buffer.from(request.body, 'base64').toString('utf8') : request.body;
  return Buffer.byteLength(text, 'utf8');
}

function describeRequest(request: HostileRequest): string {
  const body = request.body && request.body.length > 400 ? `${request.body.slice(0, 400)}... (${request.body.length} chars)` : request.body;
  return JSON.stringify({ ...request, body });
}

/** Checks one answer against the contract; returns what is wrong with it. */
function answerProblems(
  request: HostileRequest,
  result: APIGatewayProxyStructuredResultV2,
  setup: HostileSetup,
  mayRegister: boolean,
  faulted: boolean,
): string[] {
  const problems: string[] = [];
  const status = result.statusCode ?? 0;
  let body: any;
  try {
    body = JSON.parse(result.body ?? '');
  } catch {
    return [`answer ${status} is not JSON: ${String(result.body).slice(0, 200)}`];
  }
  const headers = (result.headers ?? {}) as Record<string, string>;
  // Under faults a request that reaches the table may find it unavailable: 503 code 16, to retry later.
  if (status >= 500 && !(faulted && status === 503)) problems.push(`answered ${status}`);
  if (status === 503 && !headers['retry-after']) problems.push('503 without Retry-After');
  if (headers['content-type'] !== 'application/json') problems.push(`content-type ${headers['content-type']}`);
  if (headers['cache-control'] !== 'no-store') problems.push(`cache-control ${headers['cache-control']}`);
  if (!body || typeof body !== 'object' || Object.keys(body).sort().join() !== 'data,error,success') {
    return [...problems, `not the envelope: ${result.body}`];
  }
  if (typeof body.data !== 'object' || body.data === null || Array.isArray(body.data)) problems.push('data is not an object');

  if (body.success === 1) {
    if (status !== 200 || body.error.length !== 0) problems.push(`success with status ${status} and errors ${body.error}`);
    if (request.endpoint === 'userRegister' && !mayRegister) problems.push('a body that must be refused registered');
    if (request.endpoint === 'notFound') problems.push('an unknown route succeeded');
  } else if (body.success === 0) {
    const [code, ...more] = Array.isArray(body.error) ? body.error : [];
    if (more.length || typeof code !== 'number') problems.push(`error is not one code: ${JSON.stringify(body.error)}`);
    if (DOCUMENTED.get(code) !== status) problems.push(`code ${code} with status ${status} is not documented`);
    if (body.data.message !== StatusNames[status]) problems.push(`message ${body.data.message} for ${status}`);
    // A wrong PIN (17) also says how many tries are left; a refusal for want of strength (5) what it needs.
    const extraKeys = Object.keys(body.data).filter(
      (key) =>
        key !== 'message' &&
        key !== 'errors' &&
        !(key === 'attempts_left' && code === ErrorCodes.PIN_INVALID.code) &&
        !(key === 'needs' && code === ErrorCodes.FORBIDDEN.code),
    );
    if (extraKeys.length) problems.push(`failure data carries ${extraKeys}`);
    if (body.data.errors !== undefined) {
      const wellFormed =
        Array.isArray(body.data.errors) &&
        body.data.errors.every(
          (error: any) =>
            error.code === code && typeof error.field === 'string' && typeof error.detail === 'string' && Object.keys(error).length === 3,
        );
      if (!wellFormed) problems.push(`malformed data.errors: ${JSON.stringify(body.data.errors)}`);
    }
    problems.push(...precedenceProblems(request, status, code, body, setup, faulted));
  } else {
    problems.push(`success is ${body.success}`);
  }

  // No answer names another company's data, or echoes a token the caller holds.
  const text = result.body ?? '';
  const effective = effectiveCompanyId(request.headers)?.toLowerCase();
  const foreign = effective === setup.fixture.otherCompanyId ? setup.secretsOf.company : setup.secretsOf.other;
  for (const value of foreign) if (text.includes(value)) problems.push(`answer holds another company's ${value}`);
  for (const token of setup.fixture.tokens) if (text.includes(token)) problems.push('answer echoes a token');
  if (/node_modules|\/work\/|\bat [\w.<>]+ \(|Exception/.test(text)) problems.push('answer leaks internals');
  return problems;
}

/** The code the chain must answer, as far as the request alone decides it. */
function precedenceProblems(
  request: HostileRequest,
  status: number,
  code: number,
  body: any,
  setup: HostileSetup,
  faulted: boolean,
): string[] {
  const knownCompanies = [setup.company.company_id, setup.other.company_id];
  if (request.endpoint === 'notFound') return status === 404 && code === 6 ? [] : [`unknown route answered ${status}/${code}`];
  const companyId = effectiveCompanyId(request.headers);
  if (!companyId || !HEX_ID_PATTERN.test(companyId)) return code === 2 ? [] : [`bad CompanyID answered ${code}, not 2`];
  if (bodyBytes(request) > setup.service.app.config.maxBodyBytes) return code === 13 ? [] : [`oversized body answered ${code}, not 13`];
  // A DPoP header over 8 KB is refused unread (lib/http/dpop.ts), after the body's own checks and the company's read.
  if (dpopBytes(request) > DPOP_PROOF_MAX_BYTES) {
    const allowed = code === 13 || code === 1 || code === 3 || (faulted && code === ErrorCodes.SERVICE_UNAVAILABLE.code);
    return allowed ? [] : [`oversized DPoP header answered ${code}, not 13`];
  }
  if (code === 2 || code === 13) return [`code ${code} for a valid CompanyID and body size`];
  // Past those two checks the company is read from the table, which faults may make unavailable.
  if (code === ErrorCodes.SERVICE_UNAVAILABLE.code) return faulted ? [] : ['unavailable without faults'];
  const known = knownCompanies.includes(companyId.toLowerCase());
  if (code === 3) return known ? ['a known company answered 3'] : [];
  if (!known) {
    const fields = (body.data.errors ?? []).map((error: { field: string }) => error.field);
    const beforeLookup = code === 1 && fields.every((field: string) => field === 'body' || field === 'content-type');
    return beforeLookup ? [] : [`unknown company answered ${code}`];
  }
  return documentedCodes(request.endpoint).includes(code) ? [] : [`${request.endpoint} answered undocumented code ${code}`];
}

/** A PIN's tries on one tally, and the user's wrong PINs of the day (contract 3.15). */
const isPinCount = (sk: string) => sk.startsWith('PINTRIES#') || sk.startsWith('PINDAY#');

/** A counter a request takes before it is judged: the phone's wrong codes, sends, the source address's requests, a PIN's tries. */
const isCounter = ({ pk, sk }: { pk: string; sk: string }) =>
  pk.includes('#FAILS#') || pk.includes('#SENDS#') || pk.startsWith('ADDRESS#') || isPinCount(sk);

/**
 * Changes a refused request may make: a verify spends one try of the live code (its `tries` set
 * gains one attempt id, nothing else changes), and a wrong code (9) also counts one wrong code
 * against the phone (a window item, added or changed); a wrong PIN (17) counts a try of that PIN
 * (on its tally and in the day's count),
 * and the try that locks it adds a notice with its unread count; nothing else. Under faults, also
 * what a refusal took and a fault kept it from giving back: counts only, which the service gives
 * back at best effort (a count left taken errs on the safe side).
 */
function refusalChangeProblems(request: HostileRequest, code: number, diff: SnapshotDiff, faulted: boolean): string[] {
  if (isUnchanged(diff)) return [];
  const countsOnly = !diff.removed.length && diff.added.every(isCounter) && diff.changed.every(({ after }) => isCounter(after));
  if (faulted && countsOnly) return [];
  const pinTry = ({ sk }: { sk: string }) => isPinCount(sk) || sk.startsWith('NOTIF');
  const wrongPin =
    code === ErrorCodes.PIN_INVALID.code &&
    !diff.removed.length &&
    [...diff.added, ...diff.changed.map(({ after }) => after)].every((item) => pinTry(item as { sk: string }));
  if (wrongPin) return [];
  const codes = diff.changed.filter(({ after }) => after.sk === 'OTP');
  const failures = [...diff.changed.map(({ after }) => after), ...diff.added].filter(
    (item) => item.sk === 'WINDOW' && item.pk.includes('#FAILS#'),
  );
  const triesOf = (item: Record<string, any>) => [...(item.tries ?? [])] as string[];
  const withoutTries = ({ tries: _tries, ...rest }: Record<string, any>) => canonical(rest);
  const spentOneTry =
    codes.length === 1 &&
    triesOf(codes[0]!.after).length === triesOf(codes[0]!.before).length + 1 &&
    withoutTries(codes[0]!.after) === withoutTries(codes[0]!.before);
  const wrongCode = code === ErrorCodes.OTP_INVALID.code;
  const countedTry =
    request.endpoint === 'verifyOtp' &&
    !diff.removed.length &&
    spentOneTry &&
    failures.length === (wrongCode ? 1 : 0) &&
    diff.changed.length + diff.added.length === (wrongCode ? 2 : 1);
  if (countedTry) return [];
  const keys = (items: { pk: string; sk: string }[]) => items.map((item) => `${item.pk}|${item.sk}`);
  return [
    `a refusal (${code}) changed stored data: ${JSON.stringify({
      added: keys(diff.added),
      removed: keys(diff.removed),
      changed: keys(diff.changed.map(({ after }) => after)),
    })}`,
  ];
}

export interface HostileChecker {
  setup: HostileSetup;
  counts: OutcomeCounts;
  /** Checks that read the whole table: those whose request's service sent a command that may write. */
  scans: number;
  /** Sends one request and throws, describing it, if anything about the outcome is wrong. */
  check(request: HostileRequest, options?: { mayRegister?: boolean }): Promise<void>;
}

/** A run whose service reaches DynamoDB through the fault proxy (tests/harness/fault-proxy.ts). */
export interface FaultedRun {
  /** A client that reaches DynamoDB directly, for the checks' own reads. */
  direct: DynamoDBDocumentClient;
  /** Resolves when writes the proxy still holds ('late') have landed, so a scan sees them. */
  settled: () => Promise<void>;
}

/** Sends one request through its handler as API Gateway would hand it over. */
async function answerTo(setup: HostileSetup, request: HostileRequest): Promise<APIGatewayProxyStructuredResultV2> {
  const event = httpEvent({ method: request.method, path: request.path, query: request.query });
  event.headers = request.headers;
  event.body = request.body;
  event.isBase64Encoded = request.isBase64Encoded;
  if (!request.query) delete event.queryStringParameters;
  return setup.service.handlers[request.endpoint](event, lambdaContext());
}

function countOutcome(counts: OutcomeCounts, request: HostileRequest, result: APIGatewayProxyStructuredResultV2): number | undefined {
  const code: number | undefined = JSON.parse(result.body ?? '{}').error?.[0];
  const outcome = `${result.statusCode}${code === undefined ? '' : `/${code}`}`;
  counts[request.endpoint][outcome] = (counts[request.endpoint][outcome] ?? 0) + 1;
  return code;
}

/**
 * For many clients at once (npm run fuzz -- --clients N): each answer is checked as it comes (the
 * envelope, a documented status and code, nothing leaked), and what is stored once at the end
 * (`storedProblems`): with requests side by side, one request's changes cannot be told apart.
 */
export function concurrentAnswerChecker(setup: HostileSetup, faulted: boolean) {
  const counts = emptyCounts();
  return {
    counts,
    /** The problems of one answer (none: it is right), and the answer, parsed where it is JSON. */
    async check(request: HostileRequest, { mayRegister = false } = {}): Promise<{ problems: string[]; status: number; body: any }> {
      const result = await answerTo(setup, request);
      countOutcome(counts, request, result);
      const problems = answerProblems(request, result, setup, mayRegister, faulted).map(
        (problem) => `${problem}\nrequest: ${describeRequest(request)}\nanswer: ${result.statusCode} ${result.body?.slice(0, 300)}`,
      );
      // A body that is not JSON is one of the problems already.
      const body = problems.length ? null : JSON.parse(result.body ?? 'null');
      return { problems, status: result.statusCode ?? 0, body };
    },
    /** Every company's items whole (no partial registration, no phone or code twice), read past any proxy. */
    async storedProblems(client: DynamoDBDocumentClient = setup.service.app.table.client): Promise<string[]> {
      const items = await scanItems(client, setup.service.app.table.name);
      return [setup.company.company_id, setup.other.company_id].flatMap((company) =>
        identityProblems(
          items.filter((item) => item.pk.startsWith(`C#${company}`)),
          company,
        ),
      );
    },
  };
}

/** DynamoDB's read commands: any other may change what is stored. */
const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/**
 * Watches the commands a client sends; answers whether any since the last look could write. A
 * request whose service sent none changed nothing stored (the table has no other writer), so its
 * check needs no scan: most hostile requests are refused before they write.
 */
function writesSeen(client: DynamoDBDocumentClient): () => boolean {
  let writes = 0;
  let looked = 0;
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (!READ_COMMANDS.has(context.commandName ?? '')) writes += 1;
      return next(args);
    },
    { step: 'initialize' },
  );
  return () => {
    const wrote = writes > looked;
    looked = writes;
    return wrote;
  };
}

export async function hostileChecker(setup: HostileSetup, faults?: FaultedRun): Promise<HostileChecker> {
  const knownCompanies = [setup.company.company_id, setup.other.company_id];
  const counts = emptyCounts();
  const prototypes = prototypeShape();
  const { app } = setup.service;
  const scan = () => scanItems(faults?.direct ?? app.table.client, app.table.name);
  const wroteSinceLastCheck = writesSeen(app.table.client);
  let stored: Snapshot = snapshotOf(await scan());

  const checker: HostileChecker = {
    setup,
    counts,
    scans: 0,
    async check(request, { mayRegister = false } = {}) {
      const result = await answerTo(setup, request);
      const problems = answerProblems(request, result, setup, mayRegister, faults !== undefined);
      const answer = JSON.parse(result.body ?? '{}');
      const code = countOutcome(counts, request, result);

      await faults?.settled();
      if (wroteSinceLastCheck()) {
        checker.scans += 1;
        const items = await scan();
        const now = snapshotOf(items);
        // A 503 under faults may have been applied with its answer lost: its outcome is unknown, not a refusal.
        if (answer.success !== 1 && result.statusCode !== 503)
          problems.push(...refusalChangeProblems(request, code ?? 0, diffSnapshots(stored, now), faults !== undefined));
        for (const company of knownCompanies)
          problems.push(
            ...identityProblems(
              items.filter((item) => item.pk.startsWith(`C#${company}`)),
              company,
            ),
          );
        stored = now;
      }
      if (prototypeShape() !== prototypes) problems.push('a built-in prototype changed');

      if (problems.length)
        throw new Error(
          `${problems.join('\n')}\nrequest: ${describeRequest(request)}\nanswer: ${result.statusCode} ${result.body?.slice(0, 500)}`,
        );
    },
  };
  return checker;
}
