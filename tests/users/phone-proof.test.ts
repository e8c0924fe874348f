// Proven phones (API contract 3.1, 3.3 and 6): a verified code of otp_type 2 to 4 gives a
// verification_token; registration uses a type-2 one up, marks the user phone-verified, and takes
// a phone over from a holder who never proved it; a company may require the proof.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Company, updateCompanySettings } from '../../lib/companies/companies.js';
import { LIVE_HOLDER_DAYS } from '../../lib/registration/live-holder.js';
import { hashToken } from '../../lib/secrets/hashing.js';
import { setStatusEndingSessions } from '../../lib/sessions/end-sessions.js';
import { emailClaimKey, phoneClaimKey, phoneProofKey, userKey } from '../../lib/store/keys.js';
import { writeTransaction } from '../../lib/store/transactions.js';
import { userPhoneReclaimed } from '../../lib/store/user-store.js';
import { staffMember } from '../admin/staff.js';
import { signUpWithDevice } from '../devices/device-helpers.js';
import {
  type Account,
  codeIn,
  expectFailure,
  invoke,
  logIn,
  newCompany,
  newEmployee,
  outboxMessages,
  provePhone,
  randomPhoneNumber,
  sampleRegistration,
  signUp,
  testService,
  tokenStatus,
} from '../helpers.js';

const service = testService();
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const { client, name: TableName } = service.app.table;
const getItem = async (key: { pk: string; sk: string }) =>
  (await client.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }))).Item;
const register = (body: Record<string, unknown>, target: Company = company, authorization?: string) =>
  invoke(service.handlers.userRegister, {
    path: '/wallet/v3/auth/user_register',
    headers: { CompanyID: target.company_id, ...(authorization ? { Authorization: authorization } : {}) },
    body,
  });
const user = (userId: string, target: Company = company) => getItem(userKey(target.company_id, userId));

function expectNotVerified(answer: Awaited<ReturnType<typeof register>>): void {
  expectFailure(answer, 400, 14);
  expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toEqual(['phone_verification_token']);
}

describe('verify_otp: the proof of a phone', () => {
  it('answers verified: 1 and a verification_token for a right otp_type 2 code, stored only as its hash, for 15 minutes', async () => {
    const phone = randomPhoneNumber();
    const proof = await provePhone(service, company, phone);
    expect(proof).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await getItem(phoneProofKey(company.company_id, hashToken(proof)));
    expect(stored).toMatchObject({ phone_e164: `+1${phone}`, user_type: 2, otp_type: 2 });
    expect(stored!.expires_at - stored!.created_at).toBe(15 * 60);
    expect(JSON.stringify(stored)).not.toContain(proof);
  });

  it('binds a top-up proof (otp_type 3) to the token’s user', async () => {
    const account = await signUp(service, company);
    const phone = String(account.registration.phone_number);
    const target = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 3 };
    const headers = { CompanyID: company.company_id, Authorization: account.authorization };
    expect((await invoke(service.handlers.loginPhone, { path: '/l', headers, body: target })).status).toBe(200);
    const code = codeIn(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`).at(-1));
    const verified = await invoke(service.handlers.verifyOtp, { path: '/v', headers, body: { ...target, otp: code } });
    expect(verified.body.data).toEqual({ message: expect.any(String), verified: 1, verification_token: expect.any(String) });
    const stored = await getItem(phoneProofKey(company.company_id, hashToken(verified.body.data.verification_token)));
    expect(stored).toMatchObject({ otp_type: 3, user_id: account.userId });
  });
});

describe('registration with phone_verification_token', () => {
  it('stores the user phone-verified and uses the proof up in the same write; the proof cannot be used again', async () => {
    const phone = randomPhoneNumber();
    const proof = await provePhone(service, company, phone);
    const answer = await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await user(answer.body.data.user_id)).toMatchObject({ phone_verified: 1 });
    // Marked used in that write (kept until its TTL, so a late copy of its put cannot store it unused again).
    expect(await getItem(phoneProofKey(company.company_id, hashToken(proof)))).toMatchObject({ used_at: expect.any(Number) });
    // Used up: a second registration (another user type, so the phone is free for it) cannot present it.
    expectNotVerified(await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof })));
  });

  it('refuses, with 400 code 14 on the field, a proof unknown, expired, or issued for another phone, user type or company', async () => {
    const phone = randomPhoneNumber();
    expectNotVerified(await register(sampleRegistration({ phone_number: phone, phone_verification_token: 'x'.repeat(43) })));
    const forAnotherPhone = await provePhone(service, company, randomPhoneNumber());
    expectNotVerified(await register(sampleRegistration({ phone_number: phone, phone_verification_token: forAnotherPhone })));
    const forEmployees = await provePhone(service, company, phone, { userType: 1 });
    expectNotVerified(await register(sampleRegistration({ phone_number: phone, phone_verification_token: forEmployees })));
    const other = await newCompany(service);
    const inAnotherCompany = await provePhone(service, other, phone);
    expectNotVerified(await register(sampleRegistration({ phone_number: phone, phone_verification_token: inAnotherCompany })));
    // None of them was used up by the refusals: the one for the other company still registers there.
    expect((await register(sampleRegistration({ phone_number: phone, phone_verification_token: inAnotherCompany }), other)).status).toBe(
      200,
    );
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const expiring = await provePhone(service, company, phone);
    service.clock.advance(15 * 60 + 1);
    expectNotVerified(await register(sampleRegistration({ phone_number: phone, phone_verification_token: expiring })));
  });

  it('leaves the proof unused when the registration is refused for any other reason', async () => {
    const taken = await signUp(service, company);
    const phone = randomPhoneNumber();
    const proof = await provePhone(service, company, phone);
    const refused = await register(
      sampleRegistration({ phone_number: phone, email: taken.registration.email, phone_verification_token: proof }),
    );
    expectFailure(refused, 409, 7);
    expect(await getItem(phoneProofKey(company.company_id, hashToken(proof)))).toBeDefined();
    expect((await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof }))).status).toBe(200);
  });

  it('lets exactly one of two registrations presenting one proof at once succeed', async () => {
    const phone = randomPhoneNumber();
    const proof = await provePhone(service, company, phone);
    const answers = await Promise.all(
      [0, 1].map((index) =>
        register(sampleRegistration({ phone_number: phone, email: `twin${index}.${phone}@example.com`, phone_verification_token: proof })),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body.error).toEqual([14]);
  });
});

describe('a company that requires proven phones', () => {
  let strict: Company;
  beforeAll(async () => {
    strict = await newCompany(service);
    await updateCompanySettings(service.app.table, service.clock, strict.company_id, { require_verified_phone: true });
  });

  it('refuses a customer registering themselves without a proof: 400, code 14', async () => {
    const answer = await register(sampleRegistration(), strict);
    expectNotVerified(answer);
    expect(answer.body.data.errors[0].detail).toMatch(/required/);
  });

  it('registers a customer who proves the phone', async () => {
    const phone = randomPhoneNumber();
    const proof = await provePhone(service, strict, phone);
    expect((await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof }), strict)).status).toBe(200);
  });

  it('exempts an employee registering a user with an employee token (an employee: an admin’s)', async () => {
    const employee = await newEmployee(service, strict);
    expect((await register(sampleRegistration(), strict, employee.authorization)).status).toBe(200);
    const admin = await staffMember(service, strict, 'admin');
    expect((await register(sampleRegistration({ user_type: 1, reason: 'new hire' }), strict, admin.session)).status).toBe(200);
  });

  it('leaves other companies as they are (the setting is off by default)', async () => {
    expect((await register(sampleRegistration())).status).toBe(200);
  });
});

describe('the verified owner reclaims a phone', () => {
  // A holder who never proved the phone has one session, the registration's: a login by code would prove it.
  it('moves the phone and email claims to the new user, sets the holder to status 3 and ends every session of theirs', async () => {
    const holder: Account = await signUp(service, company);
    const sessions = [holder.authorization];
    const phone = String(holder.registration.phone_number);
    expect(await tokenStatus(service, company, sessions[0]!)).toBe(200);
    const proof = await provePhone(service, company, phone);
    const answer = await register(
      sampleRegistration({ phone_number: phone, email: `owner.${phone}@example.com`, phone_verification_token: proof }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const ownerId = answer.body.data.user_id;

    expect(await user(holder.userId)).toMatchObject({ status_id: 3, phone_verified: 0 });
    expect(await user(ownerId)).toMatchObject({ status_id: 1, phone_verified: 1 });
    expect(await getItem(phoneClaimKey(company.company_id, `+1${phone}`, 2))).toMatchObject({ user_id: ownerId, status_id: 1 });
    expect(await getItem(emailClaimKey(company.company_id, String(holder.registration.email), 2))).toBeUndefined();
    for (const session of sessions) expect(await tokenStatus(service, company, session)).toBe(401);
    expect(await tokenStatus(service, company, `Token ${answer.body.data.token.token}`)).toBe(200);
    // The holder's email is free again.
    expect((await register(sampleRegistration({ email: holder.registration.email }))).status).toBe(200);
  });

  it('keeps the holder’s email for the new user when the new registration gives the same one', async () => {
    const holder = await signUp(service, company);
    const phone = String(holder.registration.phone_number);
    const proof = await provePhone(service, company, phone);
    const answer = await register(
      sampleRegistration({ phone_number: phone, email: holder.registration.email, phone_verification_token: proof }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await getItem(emailClaimKey(company.company_id, String(holder.registration.email), 2))).toMatchObject({
      user_id: answer.body.data.user_id,
    });
  });

  it('takes the phone with the holder as parent, but not with the holder’s referral code (400 code 8)', async () => {
    const holder = await signUp(service, company);
    const phone = String(holder.registration.phone_number);
    const proof = await provePhone(service, company, phone);
    const referred = await register(
      sampleRegistration({ phone_number: phone, phone_verification_token: proof, referral_code: holder.referralCode }),
    );
    expect(referred.status, JSON.stringify(referred.body)).toBe(400);
    expect(referred.body).toMatchObject({ error: [8], data: { errors: [{ field: 'referral_code' }] } });
    expect(await user(holder.userId)).toMatchObject({ status_id: 1 });
    const child = await register(
      sampleRegistration({ phone_number: phone, phone_verification_token: proof, parent_user_id: holder.userId }),
    );
    expect(child.status, JSON.stringify(child.body)).toBe(200);
    expect(await user(holder.userId)).toMatchObject({ status_id: 3 });
  });

  it('never displaces a verified holder: 409, and the proof stays unused', async () => {
    const holder = await signUp(service, company);
    // The holder logs in by code: the code reached the phone, so the holder is now verified.
    await logIn(service, company, holder);
    expect(await user(holder.userId)).toMatchObject({ phone_verified: 1 });
    const phone = String(holder.registration.phone_number);
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const proof = await provePhone(service, company, phone);
    expectFailure(await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof })), 409, 7);
    expect(await getItem(phoneProofKey(company.company_id, hashToken(proof)))).toBeDefined();
    expect(await user(holder.userId)).toMatchObject({ status_id: 1 });
    expect(await tokenStatus(service, company, holder.authorization)).toBe(200);
  });

  it('never displaces a live holder: a settled device used in the last 90 days (409 code 7, contract 3.15); unused for 90 days, it does', async () => {
    const { account: holder } = await signUpWithDevice(service, company);
    expect(await user(holder.userId)).toMatchObject({ phone_verified: 0 });
    const phone = String(holder.registration.phone_number);
    const proof = await provePhone(service, company, phone);
    expectFailure(await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof })), 409, 7);
    expect(await user(holder.userId)).toMatchObject({ status_id: 1 });
    expect(await getItem(phoneProofKey(company.company_id, hashToken(proof)))).toBeDefined();

    service.clock.advance(LIVE_HOLDER_DAYS * 24 * 3600 + 1);
    const later = await provePhone(service, company, phone);
    const taken = await register(sampleRegistration({ phone_number: phone, phone_verification_token: later }));
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(await user(holder.userId)).toMatchObject({ status_id: 3 });
  });

  it('never displaces a holder an operator disabled: 409, the holder stays disabled (status 2), the proof stays unused', async () => {
    const holder = await signUp(service, company);
    expect(await setStatusEndingSessions(service.app, company.company_id, holder.userId, 2)).toBe(1);
    const phone = String(holder.registration.phone_number);
    const proof = await provePhone(service, company, phone);
    expectFailure(await register(sampleRegistration({ phone_number: phone, phone_verification_token: proof })), 409, 7);
    expect(await user(holder.userId)).toMatchObject({ status_id: 2 });
    expect(await getItem(phoneProofKey(company.company_id, hashToken(proof)))).toBeDefined();
    expect(await getItem(phoneClaimKey(company.company_id, `+1${phone}`, 2))).toMatchObject({ user_id: holder.userId, status_id: 2 });
  });

  it('refuses the takeover inside the transaction when the holder is disabled after it was read', async () => {
    const holder = await signUp(service, company);
    const now = Math.floor(service.clock.now() / 1000);
    const read = await user(holder.userId);
    await setStatusEndingSessions(service.app, company.company_id, holder.userId, 2);
    // The write the reclaim makes with what it read before the disable: its condition refuses it.
    await expect(
      writeTransaction(service.app.table, [
        { label: 'holder', item: userPhoneReclaimed(service.app.table, company.company_id, holder.userId, read!.session_version, now) },
      ]),
    ).rejects.toMatchObject({ labels: ['holder'] });
    expect(await user(holder.userId)).toMatchObject({ status_id: 2 });
  });

  it('gives the claim the new user’s own status: a user an employee registers disabled gets no login SMS', async () => {
    const employee = await newEmployee(service, company);
    const holder = await signUp(service, company);
    const phone = String(holder.registration.phone_number);
    const proof = await provePhone(service, company, phone);
    const answer = await register(
      sampleRegistration({ phone_number: phone, phone_verification_token: proof, status_id: 2 }),
      company,
      employee.authorization,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await getItem(phoneClaimKey(company.company_id, `+1${phone}`, 2))).toMatchObject({
      user_id: answer.body.data.user_id,
      status_id: 2,
    });
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const before = outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`).length;
    const login = { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 };
    const sent = await invoke(service.handlers.loginPhone, { path: '/l', headers: { CompanyID: company.company_id }, body: login });
    expect(sent.status).toBe(200);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)).toHaveLength(before);
  });

  it('without a proof, a held phone is 409 as before', async () => {
    const holder = await signUp(service, company);
    expectFailure(await register(sampleRegistration({ phone_number: holder.registration.phone_number })), 409, 7);
    expect(await user(holder.userId)).toMatchObject({ status_id: 1 });
  });
});

describe('who is phone-verified', () => {
  it('a user who logs in by code (otp_type 1)', async () => {
    const account = await signUp(service, company);
    expect(await user(account.userId)).toMatchObject({ phone_verified: 0 });
    await logIn(service, company, account);
    expect(await user(account.userId)).toMatchObject({ phone_verified: 1 });
  });

  it('a user who verifies a type-2 code for their own phone with their own token, and nobody else by it', async () => {
    const account = await signUp(service, company);
    const stranger = await signUp(service, company);
    await provePhone(service, company, String(account.registration.phone_number), { authorization: stranger.authorization });
    expect(await user(account.userId)).toMatchObject({ phone_verified: 0 });
    expect(await user(stranger.userId)).toMatchObject({ phone_verified: 0 });
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    await provePhone(service, company, String(account.registration.phone_number), { authorization: account.authorization });
    expect(await user(account.userId)).toMatchObject({ phone_verified: 1 });
  });
});
