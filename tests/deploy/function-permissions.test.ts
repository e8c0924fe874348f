// The IAM role of each function (serverless/permissions.cjs) against what the function does: every
// flow of each function runs against DynamoDB Local while the DynamoDB requests it sends are
// recorded (as AWS authorizes them: a transaction needs the action of each of its items), as are
// its uses of the server secret and of SMS. A role that lacks an action fails in production only;
// one that grants an unused action is more than least privilege allows.
import { randomInt, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { ServerKeys } from '../../lib/secrets/server-keys.js';
import { MAX_SESSIONS_IN_TRANSACTION } from '../../lib/sessions/end-sessions.js';
import { createSmsSender, type SendText } from '../../lib/sms/sms-sender.js';
import { sessionKey } from '../../lib/store/keys.js';
import {
  type Account,
  codeIn,
  type EndpointName,
  invoke,
  logIn,
  newCompany,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  signUp,
  testService,
} from '../helpers.js';

interface Granted {
  table?: string[];
  recordSessionUse?: boolean;
  secret?: boolean;
  sms?: boolean;
}
const permissions = createRequire(import.meta.url)('../../serverless/permissions.cjs') as Record<string, Granted>;

const FUNCTION_OF: Record<EndpointName, string> = {
  user_register: 'userRegister',
  login_phone: 'loginPhone',
  verify_otp: 'verifyOtp',
  logout: 'logout',
  referral_program: 'referralProgram',
  not_found: 'notFound',
};

interface Used {
  table: Set<string>;
  recordSessionUse: boolean;
  secret: boolean;
  sms: boolean;
}
const used = new Map<string, Used>();
let running: string | undefined;
const use = (): Used | undefined => {
  if (!running) return undefined;
  if (!used.has(running)) used.set(running, { table: new Set(), recordSessionUse: false, secret: false, sms: false });
  return used.get(running);
};

// Every limit on: the per-address and per-range counters are writes of their own.
const settings = { OTP_SENDS_PER_ADDRESS_PER_HOUR: '100', OTP_VERIFIES_PER_ADDRESS: '100', OTP_SENDS_PER_PREFIX_PER_HOUR: '100' };
let outbox: SendText | undefined;
let smsFails = false;
const service = testService(settings, {
  sms: async (message) => {
    const user = use();
    if (user) user.sms = true;
    if (smsFails) throw Object.assign(new Error('SNS is down (test)'), { name: 'InternalErrorException', $fault: 'server' });
    outbox ??= createSmsSender(service.app.config);
    await outbox(message);
  },
});

/** The DynamoDB actions of one request body, as IAM sees them. */
function actionsOf(operation: string, body: Record<string, any>): { action: string; updates?: string }[] {
  if (operation === 'TransactWriteItems') {
    return body.TransactItems.flatMap((item: Record<string, any>) =>
      Object.entries(item).map(([kind, request]) => ({
        action: kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`,
        updates: (request as { UpdateExpression?: string }).UpdateExpression,
      })),
    );
  }
  if (operation === 'BatchWriteItem') {
    return [{ action: 'BatchWriteItem' }];
  }
  return [{ action: operation, updates: body.UpdateExpression }];
}

const SESSION_USE = 'SET last_used_at = :now';
const SOURCE_IP = `198.18.${randomInt(256)}.${randomInt(256)}`;

beforeAll(() => {
  service.app.table.client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string };
      const operation = request.headers['x-amz-target']?.split('.')[1];
      const user = use();
      if (user && operation) {
        const body = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        for (const { action, updates } of actionsOf(operation, JSON.parse(body))) {
          if (action === 'UpdateItem' && updates === SESSION_USE && permissions[running!]?.recordSessionUse) user.recordSessionUse = true;
          else user.table.add(action);
        }
      }
      return next(args);
    },
    { step: 'finalizeRequest', name: 'recordTableActions' },
  );
  for (const method of ['current', 'atVersion'] as const) {
    const original = ServerKeys.prototype[method];
    vi.spyOn(ServerKeys.prototype, method).mockImplementation(function (this: ServerKeys, ...args: any[]) {
      const user = use();
      if (user) user.secret = true;
      return (original as (...a: unknown[]) => unknown).apply(this, args) as never;
    });
  }
});

afterAll(() => vi.restoreAllMocks());

/** The handlers, each recording under its function's name while it runs (the flows run one call at a time). */
const handlers = Object.fromEntries(
  Object.entries(service.handlers).map(([endpoint, handler]) => [
    endpoint,
    (async (event, context) => {
      running = FUNCTION_OF[endpoint as EndpointName];
      // An address of this file's own: the per-address counters are shared by every test.
      event.requestContext.http.sourceIp = SOURCE_IP;
      try {
        return await handler(event, context);
      } finally {
        running = undefined;
      }
    }) as typeof handler,
  ]),
) as typeof service.handlers;
const recorded = { ...service, handlers };

let company: Company;
const headers = (authorization?: string) => ({ CompanyID: company.company_id, ...(authorization ? { Authorization: authorization } : {}) });

/** Sessions for a user, stored directly (as many logins would, without their codes). */
async function storeSessions(account: Account, count: number): Promise<void> {
  const now = epochSeconds(service.clock);
  for (let start = 0; start < count; start += 25) {
    const items = Array.from({ length: Math.min(25, count - start) }, () => ({
      ...sessionKey(company.company_id, account.userId, hashToken(randomUUID())),
      user_type: 2,
      created_at: now,
      last_used_at: now,
      expires_at: now + 3600,
    }));
    await service.app.table.client.send(
      new BatchWriteCommand({ RequestItems: { [service.app.table.name]: items.map((Item) => ({ PutRequest: { Item } })) } }),
    );
  }
}

/** Every flow of the API, its refusals included, so each function takes each of its paths. */
async function everyFlow(): Promise<void> {
  company = await newCompany(service);
  const referrer: Account = await signUp(recorded, company);
  // Registration: plain, referred, with a phone proof, and reclaiming a phone from an unproven holder.
  const referred = await signUp(recorded, company, { referral_code: referrer.referralCode });
  await signUp(recorded, company, { referral_code: referrer.referralCode, parent_user_id: referred.userId });
  const phone = randomPhoneNumber();
  const proof = await provePhone(recorded, company, phone);
  expect((await signUp(recorded, company, { phone_number: phone, phone_verification_token: proof })).userId).toBeTruthy();
  // A holder with more sessions than one transaction can end (the rest go first, in batches).
  const holder = await signUp(recorded, company);
  await storeSessions(holder, MAX_SESSIONS_IN_TRANSACTION + 1);
  const reclaimProof = await provePhone(recorded, company, String(holder.registration.phone_number));
  await signUp(recorded, company, { phone_number: holder.registration.phone_number, phone_verification_token: reclaimProof });
  expect((await invoke(handlers.user_register, { path: '/r', headers: headers(), body: referred.registration })).status).toBe(409);

  // Codes: a login, a wrong code, a code for nobody, a top-up proof with a token.
  const session = await logIn(recorded, company, referrer);
  const target = { dial_code: '+1', phone_number: String(referred.registration.phone_number), user_type: 2, otp_type: 1 };
  expect((await invoke(handlers.login_phone, { path: '/l', headers: headers(), body: target })).status).toBe(200);
  const right = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${target.phone_number}`).at(-1));
  const wrong = right === '000000' ? '111111' : '000000';
  expect((await invoke(handlers.verify_otp, { path: '/v', headers: headers(), body: { ...target, otp: wrong } })).status).toBe(400);
  expect((await invoke(handlers.verify_otp, { path: '/v', headers: headers(), body: { ...target, otp: right } })).status).toBe(200);
  // A send SNS fails, for a phone sent to before and for one never sent to: the counts are given back.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  smsFails = true;
  expect((await invoke(handlers.login_phone, { path: '/l', headers: headers(), body: target })).status).toBe(503);
  const neverSent = { ...target, phone_number: String((await signUp(recorded, company)).registration.phone_number) };
  expect((await invoke(handlers.login_phone, { path: '/l', headers: headers(), body: neverSent })).status).toBe(503);
  smsFails = false;
  const nobody = { ...target, phone_number: randomPhoneNumber() };
  expect((await invoke(handlers.login_phone, { path: '/l', headers: headers(), body: nobody })).status).toBe(200);
  expect((await invoke(handlers.verify_otp, { path: '/v', headers: headers(), body: { ...nobody, otp: wrong } })).status).toBe(400);
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const topUp = { ...target, phone_number: String(referrer.registration.phone_number), otp_type: 3 };
  expect((await invoke(handlers.login_phone, { path: '/l', headers: headers(session), body: topUp })).status).toBe(200);

  // Referrals: a page and the next one, after an hour so the session's use is recorded.
  service.clock.advance(3601);
  const page = await invoke(handlers.referral_program, {
    method: 'GET',
    path: '/p',
    headers: headers(referrer.authorization),
    query: { limit: '1' },
  });
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  const cursor = page.body.data.next_cursor;
  expect(cursor).toEqual(expect.any(String));
  const next = await invoke(handlers.referral_program, {
    method: 'GET',
    path: '/p',
    headers: headers(referrer.authorization),
    query: { limit: '1', cursor },
  });
  expect(next.status, JSON.stringify(next.body)).toBe(200);

  // Logout: others, current, all; after an hour, so the session's use is recorded here too.
  service.clock.advance(3601);
  const others = await logIn(recorded, company, referred);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(others), body: { scope: 'others' } })).status).toBe(200);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(others) })).status).toBe(200);
  expect((await invoke(handlers.logout, { path: '/o', headers: headers(session), body: { scope: 'all' } })).status).toBe(200);
  expect((await invoke(handlers.not_found, { path: '/nowhere', headers: headers() })).status).toBe(404);
}

describe('the role of each function (serverless/permissions.cjs)', () => {
  beforeAll(everyFlow, 120_000);

  for (const [name, granted] of Object.entries(permissions)) {
    it(`${name}: grants exactly what its flows do`, () => {
      const did = used.get(name) ?? { table: new Set(), recordSessionUse: false, secret: false, sms: false };
      expect([...did.table].sort()).toEqual([...(granted.table ?? [])].sort());
      expect(did.recordSessionUse).toBe(granted.recordSessionUse ?? false);
      expect(did.secret).toBe(granted.secret ?? false);
      expect(did.sms).toBe(granted.sms ?? false);
    });
  }

  it('names every function of the service', () => {
    expect(Object.keys(permissions).sort()).toEqual(Object.values(FUNCTION_OF).sort());
  });
});
