// Tenant isolation, endpoint by endpoint: a token, code, cursor, referral code or user id of
// company A, used with company B's CompanyID, is refused with the documented status; and no
// answer of the matrix carries any of A's ids, codes or tokens.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { otpKey } from '../../lib/store/keys.js';
import {
  type Account,
  type Answer,
  codeIn,
  expectFailure,
  invoke,
  newCompany,
  newEmployee,
  outboxMessages,
  sampleRegistration,
  signUp,
  testService,
} from '../helpers.js';

const service = testService();
const loginPhone = service.handlers.loginPhone;
const referralProgram = service.handlers.referralProgram;
const notifications = service.handlers.notifications;
const notificationsRead = service.handlers.notificationsRead;
const register = service.handlers.userRegister;
const verifyOtp = service.handlers.verifyOtp;

interface World {
  a: Company;
  b: Company;
  /** A's customer, who has referred two users, and A's employee. */
  customerA: Account;
  employeeA: Account;
  referredA: Account[];
  employeeB: Account;
  customerB: Account;
  /** A login code and a top-up code sent under A to A's customer, and a cursor of A's list. */
  loginCodeA: string;
  topUpCodeA: string;
  cursorA: string;
  /** A cursor of A's customer's notification list, and the ids of their two notifications. */
  notificationCursorA: string;
  notificationIdsA: string[];
}

let world: World;

/** Everything of A's that no answer under B may carry. */
const secretsOfA = () => [
  world.a.company_id,
  world.customerA.userId,
  world.employeeA.userId,
  ...world.referredA.map((account) => account.userId),
  world.customerA.referralCode,
  world.employeeA.referralCode,
  world.customerA.authorization.slice('Token '.length),
  world.employeeA.authorization.slice('Token '.length),
  world.loginCodeA,
  world.topUpCodeA,
  world.cursorA,
  world.notificationCursorA,
  ...world.notificationIdsA,
];

const phoneOf = (account: Account) => String(account.registration.phone_number);
const target = (account: Account, otpType: number) => ({
  dial_code: '+1',
  phone_number: phoneOf(account),
  user_type: 2,
  otp_type: otpType,
});
const headers = (company: Company, account?: Account) => ({
  CompanyID: company.company_id,
  ...(account ? { Authorization: account.authorization } : {}),
});

beforeAll(async () => {
  const [a, b] = await Promise.all([newCompany(service), newCompany(service)]);
  const [customerA, employeeA, employeeB, customerB] = await Promise.all([
    signUp(service, a),
    newEmployee(service, a),
    newEmployee(service, b),
    signUp(service, b),
  ]);
  const referredA = await Promise.all([1, 2].map(() => signUp(service, a, { referral_code: customerA.referralCode })));

  const login = await invoke(loginPhone, { path: '/l', headers: headers(a), body: target(customerA, 1) });
  // One send per phone per interval: the second code is sent a little over an interval later.
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const topUp = await invoke(loginPhone, { path: '/l', headers: headers(a, customerA), body: target(customerA, 3) });
  expect([login.status, topUp.status]).toEqual([200, 200]);
  const messages = outboxMessages(service.app.config.sms.outboxFile, `+1${phoneOf(customerA)}`);
  const codes = messages.map(codeIn);
  const list = await invoke(referralProgram, { method: 'GET', path: '/p', headers: headers(a, customerA), query: { limit: '1' } });
  expect(list.body.data.next_cursor).toEqual(expect.any(String));
  const notificationList = await invoke(notifications, {
    method: 'GET',
    path: '/n',
    headers: headers(a, customerA),
    query: { limit: '1' },
  });
  const allNotifications = await invoke(notifications, { method: 'GET', path: '/n', headers: headers(a, customerA) });
  world = {
    a,
    b,
    customerA,
    employeeA,
    referredA,
    employeeB,
    customerB,
    loginCodeA: codes[0]!,
    topUpCodeA: codes[1]!,
    cursorA: list.body.data.next_cursor,
    notificationCursorA: notificationList.body.data.next_cursor,
    notificationIdsA: allNotifications.body.data.notification.map((notification: { id: string }) => notification.id),
  };
  expect(world.notificationIdsA).toHaveLength(2);
});

afterAll(() => service.clock.reset());

interface Row {
  endpoint: string;
  what: string;
  call: () => Promise<Answer>;
  status: number;
  code: number;
  /** The field a 400 names, where it names one. */
  field?: string;
}

const registerUnder = (company: Company, body: object, account?: Account) =>
  invoke(register, { path: '/r', headers: headers(company, account), body });
const sendUnder = (company: Company, body: object, account?: Account) =>
  invoke(loginPhone, { path: '/l', headers: headers(company, account), body });
const verifyUnder = (company: Company, body: object, account?: Account) =>
  invoke(verifyOtp, { path: '/v', headers: headers(company, account), body });
const notificationsUnder = (company: Company, account: Account, query: Record<string, string> = {}) =>
  invoke(notifications, { method: 'GET', path: '/n', headers: headers(company, account), query });
const markReadUnder = (company: Company, account: Account, body: object) =>
  invoke(notificationsRead, { path: '/m', headers: headers(company, account), body });
const listUnder = (company: Company, account: Account, query: Record<string, string> = {}) =>
  invoke(referralProgram, { method: 'GET', path: '/p', headers: headers(company, account), query });

/** The matrix: A's credentials and references, each used with B's CompanyID. */
const MATRIX: Row[] = [
  {
    endpoint: 'user_register',
    what: "an employee of A's token registering an employee",
    status: 401,
    code: 4,
    call: () => registerUnder(world.b, sampleRegistration({ user_type: 1 }), world.employeeA),
  },
  {
    endpoint: 'user_register',
    what: "a customer of A's token on a customer registration",
    status: 401,
    code: 4,
    call: () => registerUnder(world.b, sampleRegistration(), world.customerA),
  },
  {
    endpoint: 'user_register',
    what: "A's referral code",
    status: 400,
    code: 8,
    field: 'referral_code',
    call: () => registerUnder(world.b, sampleRegistration({ referral_code: world.customerA.referralCode })),
  },
  {
    endpoint: 'user_register',
    what: "A's user id as parent_user_id",
    status: 400,
    code: 1,
    field: 'parent_user_id',
    call: () => registerUnder(world.b, sampleRegistration({ parent_user_id: world.customerA.userId })),
  },
  {
    endpoint: 'login_phone',
    what: "A's customer token for a top-up code (otp_type 3)",
    status: 401,
    code: 4,
    call: () => sendUnder(world.b, target(world.customerA, 3), world.customerA),
  },
  {
    endpoint: 'login_phone',
    what: "A's customer token for a KYC code (otp_type 4)",
    status: 401,
    code: 4,
    call: () => sendUnder(world.b, target(world.customerA, 4), world.customerA),
  },
  {
    endpoint: 'login_phone',
    what: "B's employee token for A's customer's phone (otp_type 3)",
    status: 403,
    code: 5,
    call: () => sendUnder(world.b, target(world.customerA, 3), world.employeeB),
  },
  {
    endpoint: 'verify_otp',
    what: "A's login code",
    status: 400,
    code: 10,
    call: () => verifyUnder(world.b, { ...target(world.customerA, 1), otp: world.loginCodeA }),
  },
  {
    endpoint: 'verify_otp',
    what: "A's top-up code with A's customer token",
    status: 401,
    code: 4,
    call: () => verifyUnder(world.b, { ...target(world.customerA, 3), otp: world.topUpCodeA }, world.customerA),
  },
  {
    endpoint: 'verify_otp',
    what: "A's top-up code with B's employee token",
    status: 403,
    code: 5,
    call: () => verifyUnder(world.b, { ...target(world.customerA, 3), otp: world.topUpCodeA }, world.employeeB),
  },
  { endpoint: 'referral_program', what: "A's customer token", status: 401, code: 4, call: () => listUnder(world.b, world.customerA) },
  {
    endpoint: 'referral_program',
    what: "A's employee token reading A's customer",
    status: 401,
    code: 4,
    call: () => listUnder(world.b, world.employeeA, { user_id: world.customerA.userId }),
  },
  {
    endpoint: 'referral_program',
    what: "A's user id, read by B's employee",
    status: 404,
    code: 6,
    call: () => listUnder(world.b, world.employeeB, { user_id: world.customerA.userId }),
  },
  {
    endpoint: 'referral_program',
    what: "A's cursor with A's user id, read by B's employee",
    status: 400,
    code: 1,
    field: 'cursor',
    call: () => listUnder(world.b, world.employeeB, { user_id: world.customerA.userId, cursor: world.cursorA }),
  },
  {
    endpoint: 'referral_program',
    what: "A's cursor on a B customer's own list",
    status: 400,
    code: 1,
    field: 'cursor',
    call: () => listUnder(world.b, world.customerB, { cursor: world.cursorA }),
  },
  { endpoint: 'notifications', what: "A's customer token", status: 401, code: 4, call: () => notificationsUnder(world.b, world.customerA) },
  {
    endpoint: 'notifications',
    what: "A's cursor on a B customer's own list",
    status: 400,
    code: 1,
    field: 'cursor',
    call: () => notificationsUnder(world.b, world.customerB, { cursor: world.notificationCursorA }),
  },
  {
    endpoint: 'notifications_read',
    what: "A's customer token marking A's notifications",
    status: 401,
    code: 4,
    call: () => markReadUnder(world.b, world.customerA, { ids: world.notificationIdsA }),
  },
];

function expectNothingOfA(answer: Answer): void {
  const text = JSON.stringify(answer.body);
  for (const secret of secretsOfA()) expect(text, 'an answer under B carries data of A').not.toContain(secret);
}

describe("A's credentials and references under B's CompanyID", () => {
  it.each(MATRIX.map((row) => [`${row.endpoint}: ${row.what}`, row] as const))('%s is refused', async (_, row) => {
    const answer = await row.call();
    expectFailure(answer, row.status, row.code);
    if (row.field) expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toEqual([row.field]);
    expectNothingOfA(answer);
  });

  it("login_phone: a login code for A's customer's phone under B is answered as any number is, and nothing is sent", async () => {
    const phone = `+1${phoneOf(world.customerA)}`;
    const before = outboxMessages(service.app.config.sms.outboxFile, phone).length;
    const answer = await sendUnder(world.b, target(world.customerA, 1));
    expect(answer.status).toBe(200);
    expectNothingOfA(answer);
    expect(outboxMessages(service.app.config.sms.outboxFile, phone)).toHaveLength(before);
    // Under B the phone has no user: B stores a code no code matches (the one A sent does not work there).
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: otpKey(world.b.company_id, phone, 2, 1) }),
    );
    expect(Item).toMatchObject({ expires_at: expect.any(Number) });
    expect(Item).not.toHaveProperty('tries');
    expect(Item).not.toHaveProperty('user_id');
    expect((await verifyUnder(world.b, { ...target(world.customerA, 1), otp: world.loginCodeA })).body.error).toEqual([9]);
  });

  it("B's own calls succeed and carry none of A's data", async () => {
    const own = await listUnder(world.b, world.employeeB, { user_id: world.customerB.userId });
    expect(own.status).toBe(200);
    expectNothingOfA(own);
    const registered = await registerUnder(
      world.b,
      sampleRegistration({ phone_number: phoneOf(world.customerA), referral_code: world.customerB.referralCode }),
    );
    expect(registered.status).toBe(200);
    expectNothingOfA(registered);
  });

  it("notifications_read: A's notification ids, marked by B's customer, change nothing, and stay unread under A", async () => {
    const unreadOfB = (await notificationsUnder(world.b, world.customerB)).body.data.unread_count;
    const answer = await markReadUnder(world.b, world.customerB, { ids: world.notificationIdsA });
    expect(answer.body.data).toMatchObject({ marked: 0, unread_count: unreadOfB });
    expectNothingOfA(answer);
    const own = await notificationsUnder(world.a, world.customerA);
    expect(own.body.data.unread_count).toBe(2);
    expect(own.body.data.notification.map((notification: { is_read: number }) => notification.is_read)).toEqual([0, 0]);
  });

  it("none of the refusals touched A's codes: both still work under A, untried", async () => {
    const phone = `+1${phoneOf(world.customerA)}`;
    for (const otpType of [1, 3]) {
      const { Item } = await service.app.table.client.send(
        new GetCommand({ TableName: service.app.table.name, Key: otpKey(world.a.company_id, phone, 2, otpType) }),
      );
      expect(Item).toMatchObject({ expires_at: expect.any(Number) });
      expect(Item).not.toHaveProperty('tries');
    }
    const login = await verifyUnder(world.a, { ...target(world.customerA, 1), otp: world.loginCodeA });
    expect(login.body.data.user_id).toBe(world.customerA.userId);
    const topUp = await verifyUnder(world.a, { ...target(world.customerA, 3), otp: world.topUpCodeA }, world.customerA);
    expect(topUp.body.data).toMatchObject({ verified: 1 });
  });

  it("A's list, read under A, shows A's two referrals and nothing of B's referrals, made here, nor of A's code tried under B", async () => {
    const referredB = await signUp(service, world.b, { first_name: 'Bruno', referral_code: world.customerB.referralCode });
    const withCodeOfA = sampleRegistration({ first_name: 'Bianca', referral_code: world.customerA.referralCode });
    expectFailure(await registerUnder(world.b, withCodeOfA), 400, 8);
    const listOfB = await listUnder(world.b, world.customerB, { limit: '100' });
    expect(listOfB.body.data.notification.map((item: { notification_body: string }) => item.notification_body)).toContainEqual(
      expect.stringContaining('Bruno'),
    );

    const answer = await listUnder(world.a, world.customerA, { limit: '100' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ referral_code: world.customerA.referralCode, referral_count: 2 });
    expect(answer.body.data.notification.map((item: { user_id: string }) => item.user_id)).toEqual([
      world.customerA.userId,
      world.customerA.userId,
    ]);
    const text = JSON.stringify(answer.body);
    for (const ofB of [world.b.company_id, world.customerB.userId, referredB.userId, 'Bruno', 'Bianca']) expect(text).not.toContain(ofB);
  });
});
