import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { userRegisterEndpoint } from '../../lib/api/user-register-endpoint.js';
import { createCompany } from '../../lib/companies/companies.js';
import { toE164 } from '../../lib/users/phone-plan.js';
import { codeIn, httpEvent, type InProcessService, lambdaContext } from '../../tests/harness/in-process-service.js';
import { runAccountChangeScenarios } from './account-change-scenarios.js';
import { runAccountScenarios } from './account-scenarios.js';
import { runBackOfficeScenarios } from './back-office-scenarios.js';
import { runDeviceScenarios } from './device-scenarios.js';
import { useBenchOnlyScrypt } from './hash-cost.js';
import { runPasskeyScenarios } from './passkey-scenarios.js';
import { RoundTripCounter } from './round-trips.js';
import { runTokenRefreshScenarios } from './token-refresh-scenarios.js';
import { type Answer, runScenario, type ScenarioResult, type ScenarioSpec } from './warm-latency.js';

// The warm-call scenarios, in an order where each leaves the data the next one needs:
// registered users, then codes sent to them, then codes checked, then referral lists, then
// notifications.

const REGISTER = '/wallet/v3/auth/user_register';
const LOGIN = '/wallet/v3/auth/login_phone';
const VERIFY = '/wallet/v3/auth/verify_otp';
const REFERRALS = '/wallet/v3/reward_promotion/referral_program';

/** Distinct national numbers valid for +1 (area code 202), as registration requires. */
function phoneNumbers(count: number): string[] {
  const numbers = new Set<string>();
  while (numbers.size < count) {
    const candidate = `202${String(randomInt(0, 1e7)).padStart(7, '0')}`;
    if (toE164('+1', candidate)) numbers.add(candidate);
  }
  return [...numbers];
}

function registration(phone: string, referralCode = ''): Record<string, unknown> {
  return { ...userRegisterEndpoint.examples.request, phone_number: phone, email: `ada.${phone}@example.com`, referral_code: referralCode };
}

/** The latest code the local outbox holds for each E.164 number. */
function latestCodes(outboxFile: string): Map<string, string> {
  const codes = new Map<string, string>();
  if (!existsSync(outboxFile)) return codes;
  for (const line of readFileSync(outboxFile, 'utf8').split('\n').filter(Boolean)) {
    const { phone_number: phone, message } = JSON.parse(line) as { phone_number: string; message: string };
    // A warning of a held change carries no code.
    try {
      codes.set(phone, codeIn(message));
    } catch {}
  }
  return codes;
}

interface Account {
  phone: string;
  userId: string;
  authorization: string;
  referralCode: string;
}

export async function runScenarios(
  service: InProcessService,
  calls: number,
  realHashCalls: number,
  progress: (line: string) => void,
): Promise<ScenarioResult[]> {
  if (calls < 2) throw new Error('the scenarios need at least 2 calls each');
  const { app, clock, handlers } = service;
  const { userRegister, loginPhone, verifyOtp, referralProgram, notifications, notificationsRead, logout, notFound } = handlers;
  const counter = new RoundTripCounter();
  counter.attach(app.table.client);
  const company = await createCompany(app.table, clock, 'Bench company');
  const headers = { CompanyID: company.company_id };
  // One draw for every list, so no number lands in two of them.
  const pool = phoneNumbers(13 * calls + realHashCalls + 3);
  const take = (count: number) => pool.splice(0, count);
  const phones = take(calls);
  const referredPhones = take(calls);
  const strangerPhones = take(calls);
  const provenPhones = take(calls);
  const reclaimedPhones = take(calls);
  const devicePhones = take(calls);
  // The movers', their new numbers and the leavers' (account-change-scenarios.ts).
  const accountChangePhones = take(3 * calls);
  // Two admins', the customers', their recovered and their second new numbers (back-office-scenarios.ts).
  const backOfficePhones = take(3 * calls + 2);
  // The passkey holders' (passkey-scenarios.ts).
  const passkeyPhones = take(calls);
  const realHashPhones = take(realHashCalls);
  const seedPhone = take(1)[0]!;
  const accounts: Account[] = [];
  const referredSessions: string[] = [];
  // Refresh tokens of sessions no later row uses (the proven-phone and reclaiming registrations'), for the refresh rows.
  const refreshTokens = { refreshTokens: [] as string[], keyedRefreshTokens: [] as string[] };
  const referrers = Math.floor(calls / 2);
  const results: ScenarioResult[] = [];
  const run = async (spec: ScenarioSpec) => {
    progress(`${spec.endpoint} / ${spec.outcome}: ${spec.calls} calls`);
    results.push(await runScenario(spec, counter));
  };
  const register = (phone: string, referralCode?: string) => ({ path: REGISTER, headers, body: registration(phone, referralCode) });
  const sendCode = (phone: string) => ({ path: LOGIN, headers, body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 } });
  const verify = (phone: string, otp: string) => ({
    path: VERIFY,
    headers,
    body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1, otp },
  });
  const e164 = (phone: string) => toE164('+1', phone)!;
  const call = async (handler: typeof userRegister, input: ReturnType<typeof register>, expected: number): Promise<Answer> => {
    const result = await handler(httpEvent(input), lambdaContext());
    if (result.statusCode !== expected) throw new Error(`setup call answered ${result.statusCode}: ${result.body}`);
    return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
  };
  /** A phone proof, got as a client gets one (setup: not measured). */
  const proofFor = async (phone: string): Promise<string> => {
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 };
    await call(loginPhone, { path: LOGIN, headers, body: target }, 200);
    const otp = latestCodes(app.config.sms.outboxFile).get(e164(phone))!;
    return (await call(verifyOtp, { path: VERIFY, headers, body: { ...target, otp } }, 200)).body.data.verification_token;
  };
  const registerProven = (phone: string, proof: string) => ({
    path: REGISTER,
    headers,
    body: { ...registration(phone), phone_verification_token: proof },
  });

  // Registration: the non-hashing path once per call at a bench-only scrypt cost, then a few
  // registrations at the real cost. One unmeasured call first fills the company cache.
  useBenchOnlyScrypt(true);
  try {
    await userRegister(httpEvent(register(seedPhone)), lambdaContext());
    const base = { endpoint: 'userRegister' as const, handler: userRegister, calls, hashing: 'injected' as const };
    await run({
      ...base,
      outcome: 'new user',
      expectStatus: 200,
      event: (index) => register(phones[index]!),
      onAnswer: (index, { body }: Answer) =>
        accounts.push({
          phone: phones[index]!,
          userId: body.data.user_id,
          authorization: `Token ${body.data.token.token}`,
          referralCode: body.data.referral_code,
        }),
    });
    await run({
      ...base,
      outcome: 'new user, referred',
      expectStatus: 200,
      event: (index) => register(referredPhones[index]!, accounts[index % referrers]!.referralCode),
      onAnswer: (index, { body }) => (referredSessions[index] = `Token ${body.data.token.token}`),
    });
    await run({ ...base, outcome: 'duplicate phone', expectStatus: 409, event: (index) => register(phones[index]!) });
    await run({
      ...base,
      hashing: 'none',
      outcome: 'unknown referral code',
      expectStatus: 400,
      event: (index) => register(strangerPhones[index]!, 'UUUUUUUU'),
    });

    // Proven phones (setup, not measured: a proof for each phone, and an unverified holder of each reclaimed one).
    progress(`setting up ${2 * calls} phone proofs and ${calls} unverified holders`);
    for (const phone of reclaimedPhones) await call(userRegister, register(phone), 200);
    const proofs = new Map<string, string>();
    for (const phone of [...provenPhones, ...reclaimedPhones]) proofs.set(phone, await proofFor(phone));
    await run({
      ...base,
      outcome: 'new user, proven phone',
      expectStatus: 200,
      event: (index) => registerProven(provenPhones[index]!, proofs.get(provenPhones[index]!)!),
      onAnswer: (index, { body }) => (refreshTokens.refreshTokens[index] = body.data.refresh_token),
    });
    await run({
      ...base,
      outcome: 'phone reclaimed from an unverified holder',
      expectStatus: 200,
      event: (index) => registerProven(reclaimedPhones[index]!, proofs.get(reclaimedPhones[index]!)!),
      onAnswer: (index, { body }) => (refreshTokens.keyedRefreshTokens[index] = body.data.refresh_token),
    });
  } finally {
    useBenchOnlyScrypt(false);
  }
  await runTokenRefreshScenarios(service, company, refreshTokens, run);
  await runAccountScenarios(
    service,
    company,
    accounts.map(({ authorization }) => authorization),
    accounts.map(({ phone }) => String(registration(phone).email)),
    run,
  );
  if (realHashCalls > 0) {
    await run({
      endpoint: 'userRegister',
      outcome: 'new user',

      handler: userRegister,
      calls: realHashCalls,
      hashing: 'real',
      expectStatus: 200,
      event: (index) => register(realHashPhones[index]!),
    });
  }

  // Codes: a first send, an immediate second one (refused), and one a minute later.
  const login = { endpoint: 'loginPhone' as const, handler: loginPhone, calls };
  try {
    await run({ ...login, outcome: 'first send in window', smsPerCall: 1, expectStatus: 200, event: (index) => sendCode(phones[index]!) });
    await run({ ...login, outcome: 'too soon (429)', expectStatus: 429, event: (index) => sendCode(phones[index]!) });
    clock.advance(app.config.otp.sendIntervalSeconds + 1);
    await run({ ...login, outcome: 'later send in window', smsPerCall: 1, expectStatus: 200, event: (index) => sendCode(phones[index]!) });
    await run({ ...login, outcome: 'unregistered phone', expectStatus: 200, event: (index) => sendCode(strangerPhones[index]!) });
    // Toll-free numbers (US 800): valid, but not mobile lines.
    await run({
      ...login,
      outcome: 'destination refused (400, code 15)',
      expectStatus: 400,
      event: (index) => sendCode(`800${2_000_000 + index}`),
    });

    const codes = latestCodes(app.config.sms.outboxFile);
    const code = (phone: string) => codes.get(e164(phone)) ?? '000000';
    const wrong = (phone: string) => String((Number(code(phone)) + 1) % 1e6).padStart(6, '0');
    const check = { endpoint: 'verifyOtp' as const, handler: verifyOtp, calls };
    await run({ ...check, outcome: 'wrong code', expectStatus: 400, event: (index) => verify(phones[index]!, wrong(phones[index]!)) });
    await run({ ...check, outcome: 'right login code', expectStatus: 200, event: (index) => verify(phones[index]!, code(phones[index]!)) });
    await run({
      ...check,
      outcome: 'code already used',
      expectStatus: 400,
      event: (index) => verify(phones[index]!, code(phones[index]!)),
    });
  } finally {
    clock.reset();
  }

  // Referral lists: each of the first half of the users has two referred sign-ups, so a page
  // of one has a next page.
  const cursors: string[] = [];
  const list = { endpoint: 'referralProgram' as const, handler: referralProgram, calls };
  const reader = (index: number) => accounts[index % referrers]!;
  const listing = (account: Account, query: Record<string, string>) => ({
    method: 'GET',
    path: REFERRALS,
    headers: { ...headers, Authorization: account.authorization },
    query,
  });
  await run({
    ...list,
    outcome: 'own list, first page',
    expectStatus: 200,
    event: (index) => listing(reader(index), { limit: '1' }),
    onAnswer: (index, { body }) => (cursors[index] = body.data.next_cursor),
  });
  await run({
    ...list,
    outcome: 'own list, next page',
    expectStatus: 200,
    event: (index) => listing(reader(index), { limit: '1', cursor: cursors[index]! }),
  });
  await run({
    ...list,
    outcome: "another user's list (403)",
    expectStatus: 403,
    event: (index) => listing(accounts[index]!, { user_id: accounts[(index + 1) % calls]!.userId }),
  });

  // Notifications: the same readers' lists (two referral notifications each), then each reader
  // marks its newest read by id, the same id again, all (the one left), and all again (none left).
  const NOTIFICATIONS = '/wallet/v3/notifications';
  const newest: string[] = [];
  const notificationCursors: string[] = [];
  const lists = { endpoint: 'notifications' as const, handler: notifications, calls };
  const notificationsOf = (account: Account, query: Record<string, string>) => ({
    method: 'GET',
    path: NOTIFICATIONS,
    headers: { ...headers, Authorization: account.authorization },
    query,
  });
  await run({
    ...lists,
    outcome: 'own list, first page',
    expectStatus: 200,
    event: (index) => notificationsOf(reader(index), { limit: '1' }),
    onAnswer: (index, { body }) => {
      notificationCursors[index] = body.data.next_cursor;
      newest[index] = body.data.notification[0].id;
    },
  });
  await run({
    ...lists,
    outcome: 'own list, next page',
    expectStatus: 200,
    event: (index) => notificationsOf(reader(index), { limit: '1', cursor: notificationCursors[index]! }),
  });
  const marks = { endpoint: 'notificationsRead' as const, handler: notificationsRead, calls: referrers };
  const marking = (index: number, body: unknown) => ({
    path: `${NOTIFICATIONS}/read`,
    headers: { ...headers, Authorization: accounts[index]!.authorization },
    body,
  });
  await run({ ...marks, outcome: 'by id', expectStatus: 200, event: (index) => marking(index, { ids: [newest[index]!] }) });
  await run({ ...marks, outcome: 'by id, already read', expectStatus: 200, event: (index) => marking(index, { ids: [newest[index]!] }) });
  await run({ ...marks, outcome: 'all (one unread)', expectStatus: 200, event: (index) => marking(index, { all: 1 }) });
  await run({ ...marks, outcome: 'all, none unread', expectStatus: 200, event: (index) => marking(index, { all: 1 }) });

  // Logout: each account has its registration's session and its login's; each referred user one.
  const out = { endpoint: 'logout' as const, handler: logout, calls };
  const logoutOf = (authorization: string, scope: string) => ({
    path: '/wallet/v3/auth/logout',
    headers: { ...headers, Authorization: authorization },
    body: { scope },
  });
  await run({
    ...out,
    outcome: 'other sessions (one)',
    expectStatus: 200,
    event: (index) => logoutOf(accounts[index]!.authorization, 'others'),
  });
  await run({
    ...out,
    outcome: 'all sessions (one)',
    expectStatus: 200,
    event: (index) => logoutOf(accounts[index]!.authorization, 'all'),
  });
  await run({ ...out, outcome: 'this session', expectStatus: 200, event: (index) => logoutOf(referredSessions[index]!, 'current') });

  // Trusted devices and PINs: their customers are registered at the bench-only scrypt cost.
  useBenchOnlyScrypt(true);
  try {
    await runDeviceScenarios(service, company, devicePhones, run);
    await runPasskeyScenarios(service, company, passkeyPhones, run);
  } finally {
    useBenchOnlyScrypt(false);
  }

  // A new phone number and deletion, last: the phone change's warning is a text with no code in
  // the outbox. Their customers are registered at the bench-only scrypt cost.
  useBenchOnlyScrypt(true);
  try {
    await runAccountChangeScenarios(service, company, accountChangePhones, run, progress);
    await runBackOfficeScenarios(service, company, backOfficePhones, run, progress);
  } finally {
    useBenchOnlyScrypt(false);
  }

  await run({
    endpoint: 'notFound',
    outcome: 'unknown route',

    handler: notFound,
    calls,
    expectStatus: 404,
    event: () => ({ method: 'GET', path: '/wallet/v3/nothing' }),
  });
  return results;
}
