import { createHmac, hkdfSync, randomBytes, scryptSync } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { hashPin, hashToken, PIN_SCRYPT, PRODUCTION_HASH_COST, verifyPassword, verifyPin } from '../../lib/secrets/hashing.js';
import { emailClaimKey, phoneClaimKey, referralCodeKey, sessionKey, userKey } from '../../lib/store/keys.js';
import { getUserWithReferralCount } from '../../lib/store/referral-store.js';
import { getUser, type UserRecord } from '../../lib/store/user-store.js';
import { staffMember } from '../admin/staff.js';
import {
  type Answer,
  invoke,
  newCompany,
  newEmployee,
  randomPhoneNumber,
  sampleRegistration,
  sessionIdOf,
  standalone,
  testService,
} from '../helpers.js';

const service = testService();
const register = service.handlers.userRegister;
/** The same table and secret at production's hash cost, for the tests about how secrets are stored. */
const production = testService({}, { hashCost: PRODUCTION_HASH_COST });

const PATH = '/wallet/v3/auth/user_register';

let company: Company;

function registerAs(companyId: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return invoke(register, { path: PATH, headers: { CompanyID: companyId, ...headers }, body });
}

const registerIn = (body: unknown, headers: Record<string, string> = {}) => registerAs(company.company_id, body, headers);

/** A user's referral count: the shards summed with the user's item, as the referral list reads it. */
async function referralCount(userId: string): Promise<number> {
  return (await getUserWithReferralCount(service.app.table, company.company_id, userId))!.referralCount;
}

async function storedUser(userId: string): Promise<UserRecord> {
  const user = await getUser(service.app.table, company.company_id, userId);
  expect(user).toBeDefined();
  return user!;
}

function fieldsOf(answer: Answer): string[] {
  return (answer.body.data.errors ?? []).map((error: { field: string }) => error.field);
}

beforeAll(async () => {
  company = await newCompany(service);
});

describe('registration of a customer', () => {
  it('accepts the seed-shaped sample and answers with a token, a 32-hex user id and a referral code', async () => {
    const answer = await registerIn(sampleRegistration());
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(1);
    expect(answer.body.error).toEqual([]);
    expect(answer.body.data.message).toEqual(expect.any(String));
    expect(answer.body.data.user_id).toMatch(/^[0-9a-f]{32}$/);
    expect(answer.body.data.token.type).toBe('Token');
    expect(Buffer.from(answer.body.data.token.token, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(answer.body.data.referral_code).toMatch(/^[0-9A-Z]{8}$/);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('stores the phone in E.164, secrets only as slow salted hashes, and nothing it was not asked to', async () => {
    const national = randomPhoneNumber();
    const formatted = `(${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`;
    const body = JSON.stringify(sampleRegistration({ phone_number: formatted, unexpected_field: 'x' }));
    const answer = await invoke(production.handlers.userRegister, {
      path: PATH,
      headers: { CompanyID: company.company_id },
      body: body.replace('{', '{"__proto__":{"polluted":1},"constructor":{"x":1},'),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const user = await storedUser(answer.body.data.user_id);
    expect(user.phone_e164).toBe(`+1${national}`);
    expect(user).not.toHaveProperty('constructor', { x: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(user.location_point).toEqual({ lat: 23.0225, lng: 72.5714 });
    expect(user.kyc_process_status).toBe(1);
    expect(user).not.toHaveProperty('unexpected_field');
    expect(user).not.toHaveProperty('password');
    expect(user).not.toHaveProperty('login_pin');
    const stored = JSON.stringify(user);
    expect(stored).not.toContain('correct horse battery');
    for (const pin of ['2580', '1397']) expect(stored).not.toMatch(standalone(pin));
    expect(user.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(await verifyPassword(service.app.keys, 'correct horse battery', user.password_hash)).toBe(true);
    expect(user.login_pin_hash).toMatch(/^hmac-scrypt\$1\$4096\$8\$1\$/);
    expect(await verifyPin(service.app.keys, '2580', user.login_pin_hash)).toBe(true);
    expect(await verifyPin(service.app.keys, '1397', user.transaction_pin_hash)).toBe(true);
    expect(await verifyPin(service.app.keys, '2581', user.login_pin_hash)).toBe(false);
  });

  it('still verifies PINs and passwords stored the old way (scrypt N=2^15, p=3; PINs of the pepper HMAC, before key versions)', async () => {
    // Built as the code before this scheme did: HMAC-SHA256 under the HKDF-derived pepper, then scrypt.
    const secret = Buffer.from(service.app.config.serverSecret!, 'hex');
    const pepper = Buffer.from(hkdfSync('sha256', secret, 'wallet-auth', 'pin-pepper', 32));
    const salt = randomBytes(16);
    const peppered = createHmac('sha256', pepper).update('4826').digest();
    const hash = scryptSync(peppered, salt, 32, { N: 2 ** 15, r: 8, p: 3, maxmem: 64 * 1024 * 1024 });
    const legacy = ['scrypt', 32768, 8, 3, salt.toString('base64'), hash.toString('base64')].join('$');

    expect(await verifyPin(service.app.keys, '4826', legacy)).toBe(true);
    expect(await verifyPin(service.app.keys, '4827', legacy)).toBe(false);
    // A new hash of the same PIN names its scheme, key version and cheaper setting.
    const current = await hashPin(service.app.keys, '4826', PIN_SCRYPT);
    expect(current).toMatch(/^hmac-scrypt\$1\$4096\$8\$1\$/);
    expect(await verifyPin(service.app.keys, '4826', current)).toBe(true);
    // A password hashed at the setting before (N=2^15, p=3) still verifies: the hash names its settings.
    const oldSalt = randomBytes(16);
    const oldPassword = scryptSync('correct horse battery', oldSalt, 32, { N: 2 ** 15, r: 8, p: 3, maxmem: 64 * 1024 * 1024 });
    const storedBefore = ['scrypt', 32768, 8, 3, oldSalt.toString('base64'), oldPassword.toString('base64')].join('$');
    expect(await verifyPassword(service.app.keys, 'correct horse battery', storedBefore)).toBe(true);
    expect(await verifyPassword(service.app.keys, 'correct horse batterY', storedBefore)).toBe(false);
    // A hash naming a key version the secret does not have verifies nothing.
    expect(await verifyPin(service.app.keys, '4826', current.replace('hmac-scrypt$1$', 'hmac-scrypt$9$'))).toBe(false);
  });

  it("stores no token, only a session in the user's partition living 30 days at most, and the refresh token's hash", async () => {
    const answer = await registerIn(sampleRegistration());
    const { token } = answer.body.data.token;
    const userId = answer.body.data.user_id;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]{86}$/);
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: sessionKey(company.company_id, userId, sessionIdOf(`Token ${token}`)) }),
    );
    expect(Item).toMatchObject({ user_type: 2, refresh_hash: hashToken(answer.body.data.refresh_token), refresh_gen: 1 });
    // The TTL attribute is the absolute lifetime; the idle timeout counts from last_used_at.
    expect(Item!.expires_at - Item!.created_at).toBe(30 * 24 * 3600);
    expect(Item!.last_used_at).toBe(Item!.created_at);
    expect(JSON.stringify(Item)).not.toContain(token.split('.')[2]);
    expect(JSON.stringify(Item)).not.toContain(answer.body.data.refresh_token.split('.')[4]);
    expect(await storedUser(userId)).toMatchObject({ session_version: 1, phone_verified: 0 });
  });

  it('forces self-registered KYC and status fields to pending, initiated and active', async () => {
    const answer = await registerIn(sampleRegistration({ kyc_status: 2, kyc_process_status: 3, status_id: 7 }));
    expect(answer.status).toBe(200);
    const user = await storedUser(answer.body.data.user_id);
    expect([user.kyc_status, user.kyc_process_status, user.status_id]).toEqual([1, 1, 1]);
    expect(user.cretaed_by).toBe(user.user_id);
  });

  it('ignores cretaed_by from the body', async () => {
    const answer = await registerIn(sampleRegistration({ cretaed_by: 'f'.repeat(32) }));
    const user = await storedUser(answer.body.data.user_id);
    expect(user.cretaed_by).toBe(user.user_id);
  });

  it('accepts location_poin, the parameter table spelling, as an alias', async () => {
    const body = sampleRegistration({ location_point: undefined, location_poin: '-33.8688, 151.2093' });
    const answer = await registerIn(body);
    expect(answer.status).toBe(200);
    expect((await storedUser(answer.body.data.user_id)).location_point).toEqual({ lat: -33.8688, lng: 151.2093 });
  });

  it('treats optional fields sent as "" or null as absent', async () => {
    const answer = await registerIn(sampleRegistration({ email: '', image: null, location_point: '', birth_date: null }));
    expect(answer.status).toBe(200);
    const user = await storedUser(answer.body.data.user_id);
    expect(user.email).toBeUndefined();
    expect(user.location_point).toBeUndefined();
  });

  it('accepts kyc_process_status as an integer or a string holding one', async () => {
    for (const value of [2, '3']) {
      const employee = await newEmployee(service, company);
      const answer = await registerIn(sampleRegistration({ kyc_process_status: value }), { Authorization: employee.authorization });
      expect(answer.status).toBe(200);
      expect((await storedUser(answer.body.data.user_id)).kyc_process_status).toBe(Number(value));
    }
  });
});

describe('validation', () => {
  const refused = async (overrides: Record<string, unknown>, field: string) => {
    const answer = await registerIn(sampleRegistration(overrides));
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toMatchObject({ success: 0, error: [1], data: { message: 'BAD_REQUEST' } });
    expect(fieldsOf(answer)).toContain(field);
  };

  it.each(['dial_code', 'phone_number', 'user_type', 'first_name', 'last_name', 'password', 'login_pin', 'transaction_pin'])(
    'requires %s',
    async (field) => {
      await refused({ [field]: undefined }, field);
      await refused({ [field]: '' }, field);
    },
  );

  it('lists every invalid field at once, each with code 1 and a detail', async () => {
    const answer = await registerIn(sampleRegistration({ password: 'short', login_pin: '1111', email: 'nope' }));
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer).sort()).toEqual(['email', 'login_pin', 'password']);
    for (const error of answer.body.data.errors) expect(error).toEqual({ code: 1, field: error.field, detail: expect.any(String) });
  });

  it.each([
    [{ dial_code: '1' }, 'dial_code'],
    [{ dial_code: '+12345' }, 'dial_code'],
    [{ phone_number: '12' }, 'phone_number'],
    [{ phone_number: '1234567' }, 'phone_number'],
    [{ phone_number: '5555555555' }, 'phone_number'],
    [{ dial_code: '+44', phone_number: '2025550143' }, 'phone_number'],
    [{ user_type: 3 }, 'user_type'],
    [{ user_type: '2' }, 'user_type'],
    [{ password: 'seven77' }, 'password'],
    [{ password: 'x'.repeat(129) }, 'password'],
    [{ login_pin: '123' }, 'login_pin'],
    [{ login_pin: '1234567' }, 'login_pin'],
    [{ login_pin: '12a4' }, 'login_pin'],
    [{ login_pin: '7777' }, 'login_pin'],
    [{ login_pin: '1234' }, 'login_pin'],
    [{ transaction_pin: '654321' }, 'transaction_pin'],
    [{ transaction_pin: 4826 }, 'transaction_pin'],
    [{ email: 'not-an-email' }, 'email'],
    [{ location_point: '91,10' }, 'location_point'],
    [{ location_point: '10,181' }, 'location_point'],
    [{ location_point: 'somewhere' }, 'location_point'],
    [{ kyc_process_status: '4' }, 'kyc_process_status'],
    [{ kyc_process_status: 'x' }, 'kyc_process_status'],
    [{ kyc_status: 3 }, 'kyc_status'],
    [{ birth_date: Date.now() + 86_400_000 }, 'birth_date'],
    [{ birth_date: '631152000000' }, 'birth_date'],
    [{ image: 'javascript:alert(1)' }, 'image'],
    [{ parent_user_id: 'abc' }, 'parent_user_id'],
    [{ first_name: 'x'.repeat(101) }, 'first_name'],
  ])('refuses %j', async (overrides, field) => {
    await refused(overrides, field);
  });

  it("tells a past birth date by the service's clock, not the machine's", async () => {
    const birthDate = Date.UTC(2010, 0, 1);
    service.clock.freeze(Date.UTC(2005, 0, 1) / 1000);
    try {
      await refused({ birth_date: birthDate }, 'birth_date');
    } finally {
      service.clock.reset();
    }
    expect((await registerIn(sampleRegistration({ birth_date: birthDate }))).status).toBe(200);
  });

  it('accepts a PIN that is neither repeated nor a straight run', async () => {
    const answer = await registerIn(sampleRegistration({ login_pin: '1243', transaction_pin: '908172' }));
    expect(answer.status).toBe(200);
  });

  it('accepts a national number written with its trunk prefix and separators', async () => {
    const national = randomPhoneNumber('+44', '7911');
    const answer = await registerIn(
      sampleRegistration({ dial_code: '+44', phone_number: `0${national.slice(0, 4)} ${national.slice(4)}` }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await storedUser(answer.body.data.user_id)).phone_e164).toBe(`+44${national}`);
  });
});

describe('identity is unique per company, phone or email, and user type', () => {
  it('refuses a second registration of the same phone and user type with 409, code 7', async () => {
    const body = sampleRegistration();
    expect((await registerIn(body)).status).toBe(200);
    const again = await registerIn({ ...body, email: undefined });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: 0, error: [7], data: { message: 'CONFLICT' } });
    expect(fieldsOf(again)).toEqual(['phone_number']);
  });

  it('treats the national and international forms of one phone as the same phone', async () => {
    const national = randomPhoneNumber('+44', '7700');
    const body = sampleRegistration({ dial_code: '+44', phone_number: national });
    expect((await registerIn(body)).status).toBe(200);
    const again = await registerIn({ ...sampleRegistration(), dial_code: '+44', phone_number: `0${national}` });
    expect(again.status).toBe(409);
  });

  it('refuses the same email in any letter case for the same user type', async () => {
    const first = sampleRegistration();
    expect((await registerIn(first)).status).toBe(200);
    const again = await registerIn(sampleRegistration({ email: String(first.email).toUpperCase() }));
    expect(again.status).toBe(409);
    expect(fieldsOf(again)).toEqual(['email']);
  });

  it('lets the same phone register once as a customer and once as an employee', async () => {
    const body = sampleRegistration();
    expect((await registerIn(body)).status).toBe(200);
    const admin = await staffMember(service, company, 'admin');
    const asEmployee = await registerIn({ ...body, user_type: 1, reason: 'new hire' }, { Authorization: admin.session });
    expect(asEmployee.status).toBe(200);
  });

  it('lets the same phone register in two companies', async () => {
    const other = await newCompany(service);
    const body = sampleRegistration();
    expect((await registerIn(body)).status).toBe(200);
    expect((await registerAs(other.company_id, body)).status).toBe(200);
  });

  it('gives exactly one user for 20 concurrent registrations of one phone', async () => {
    const body = sampleRegistration();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => registerIn({ ...body, email: `race${index}.${body.email}` })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    for (const refused of answers.filter((answer) => answer.status === 409)) expect(refused.body.error).toEqual([7]);

    const winnerIndex = answers.findIndex((answer) => answer.status === 200);
    const winner = answers[winnerIndex]!.body.data.user_id;
    const claim = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: phoneClaimKey(company.company_id, `+1${String(body.phone_number)}`, 2) }),
    );
    expect(claim.Item?.user_id).toBe(winner);
    // The winner's email is claimed for the winner; no loser left a half-written identity behind.
    const emailClaimOwners: unknown[] = [];
    for (let index = 0; index < 20; index++) {
      const email = `race${index}.${String(body.email)}`;
      const { Item } = await service.app.table.client.send(
        new GetCommand({ TableName: service.app.table.name, Key: emailClaimKey(company.company_id, email, 2) }),
      );
      emailClaimOwners.push(Item?.user_id);
    }
    expect(emailClaimOwners).toEqual(answers.map((_, index) => (index === winnerIndex ? winner : undefined)));
  });
});

describe('employees', () => {
  it('needs a token to register an employee (401, code 4)', async () => {
    const answer = await registerIn(sampleRegistration({ user_type: 1 }));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ success: 0, error: [4], data: { message: 'UNAUTHORIZED' } });
  });

  it("refuses a customer's token for registering an employee (403, code 5)", async () => {
    const customer = await registerIn(sampleRegistration());
    const answer = await registerIn(sampleRegistration({ user_type: 1 }), { Authorization: `Token ${customer.body.data.token.token}` });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ success: 0, error: [5], data: { message: 'FORBIDDEN' } });
  });

  it("registers an employee with an admin's token (contract 3.14, round 6), cretaed_by from the token, KYC fields as sent", async () => {
    const employee = await staffMember(service, company, 'admin');
    const body = { user_type: 1, kyc_status: 2, kyc_process_status: '3', status_id: 1, cretaed_by: '0'.repeat(32), reason: 'new hire' };
    const answer = await registerIn(sampleRegistration(body), { authorization: employee.session.replace('Token', 'token') });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const user = await storedUser(answer.body.data.user_id);
    expect(user).toMatchObject({ user_type: 1, kyc_status: 2, kyc_process_status: 3, status_id: 1, cretaed_by: employee.userId });
  });

  it('lets an employee register a user as disabled (status_id 2): stored so, with no session (the token it answers is ended)', async () => {
    const employee = await newEmployee(service, company);
    const answer = await registerIn(sampleRegistration({ status_id: 2 }), { Authorization: employee.authorization });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await storedUser(answer.body.data.user_id)).toMatchObject({ status_id: 2 });
    const list = await invoke(service.handlers.referralProgram, {
      method: 'GET',
      path: '/p',
      headers: { CompanyID: company.company_id, Authorization: `Token ${answer.body.data.token.token}` },
    });
    expect(list.status).toBe(401);
  });

  it.each([3, 4, 1000])('refuses status_id %i from an employee (1 active, 2 disabled; 3 comes only from a reclaim)', async (statusId) => {
    const employee = await newEmployee(service, company);
    const answer = await registerIn(sampleRegistration({ status_id: statusId }), { Authorization: employee.authorization });
    expect(answer.status).toBe(400);
    expect(answer.body.data.errors).toEqual([{ code: 1, field: 'status_id', detail: 'must be 1 (active) or 2 (disabled)' }]);
  });

  it("refuses an employee's token without the admin role for registering an employee (403, code 5)", async () => {
    const employee = await newEmployee(service, company);
    const answer = await registerIn(sampleRegistration({ user_type: 1, reason: 'x' }), { Authorization: employee.authorization });
    expect(answer.body).toMatchObject({ success: 0, error: [5], data: { message: 'FORBIDDEN' } });
  });

  it('refuses a malformed, unknown or other-company token with 401', async () => {
    const other = await newCompany(service);
    const outsider = await newEmployee(service, other);
    for (const authorization of ['Bearer abc', 'Token', `Token ${'A'.repeat(43)}`, outsider.authorization]) {
      const answer = await registerIn(sampleRegistration({ user_type: 1 }), { Authorization: authorization });
      expect(answer.status, authorization).toBe(401);
      expect(answer.body.error).toEqual([4]);
    }
  });

  it('refuses an expired token with 401', async () => {
    const employee = await newEmployee(service, company);
    const hash = sessionIdOf(employee.authorization);
    await service.app.table.client.send(
      new UpdateCommand({
        TableName: service.app.table.name,
        Key: sessionKey(company.company_id, employee.userId, hash),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const answer = await registerIn(sampleRegistration({ user_type: 1 }), { Authorization: employee.authorization });
    expect(answer.status).toBe(401);
  });
});

describe('referrals and parents', () => {
  it('credits the referrer: referred_by, referral_count and a notification, in the same company', async () => {
    const referrer = await registerIn(sampleRegistration());
    const code = referrer.body.data.referral_code;
    const referred = await registerIn(sampleRegistration({ first_name: 'Grace', referral_code: code.toLowerCase() }));
    expect(referred.status).toBe(200);
    expect((await storedUser(referred.body.data.user_id)).referred_by).toBe(referrer.body.data.user_id);
    expect(await referralCount(referrer.body.data.user_id)).toBe(1);

    const { Items } = await service.app.table.client.send(
      new QueryCommand({
        TableName: service.app.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :notification)',
        ExpressionAttributeValues: { ':pk': userKey(company.company_id, referrer.body.data.user_id).pk, ':notification': 'NOTIF#' },
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Items![0]).toMatchObject({
      user_id: referrer.body.data.user_id,
      is_read: 0,
      notification_type: 1,
      notification_event_type: 1,
      referred_user_id: referred.body.data.user_id,
    });
    expect(Items![0]!.notification_body).toContain('Grace');
  });

  it('refuses an unknown referral code, and one from another company, with 400 code 8', async () => {
    const other = await newCompany(service);
    const outsider = await registerAs(other.company_id, sampleRegistration());
    for (const referralCode of ['ZZZZZZZZ', outsider.body.data.referral_code]) {
      const answer = await registerIn(sampleRegistration({ referral_code: referralCode }));
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: 0, error: [8], data: { message: 'BAD_REQUEST' } });
      expect(fieldsOf(answer)).toEqual(['referral_code']);
    }
  });

  it('gives every user a referral code of their own, claimed in the company', async () => {
    const answer = await registerIn(sampleRegistration());
    const { Item } = await service.app.table.client.send(
      new GetCommand({ TableName: service.app.table.name, Key: referralCodeKey(company.company_id, answer.body.data.referral_code) }),
    );
    expect(Item?.user_id).toBe(answer.body.data.user_id);
  });

  it('accepts a parent_user_id of the same company and refuses any other', async () => {
    const parent = await registerIn(sampleRegistration());
    const child = await registerIn(sampleRegistration({ parent_user_id: parent.body.data.user_id.toUpperCase() }));
    expect(child.status).toBe(200);
    expect((await storedUser(child.body.data.user_id)).parent_user_id).toBe(parent.body.data.user_id);

    const other = await newCompany(service);
    const outsider = await registerAs(other.company_id, sampleRegistration());
    for (const parentId of ['0'.repeat(32), outsider.body.data.user_id]) {
      const answer = await registerIn(sampleRegistration({ parent_user_id: parentId }));
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual([1]);
      expect(fieldsOf(answer)).toEqual(['parent_user_id']);
    }
  });
  // The parent's check is on the user's item, the referrer's count on a shard of it: both in one transaction.
  it('accepts a parent who is also the referrer, and credits them once', async () => {
    const parent = await registerIn(sampleRegistration());
    const { user_id: parentId, referral_code: code } = parent.body.data;
    const child = await registerIn(sampleRegistration({ parent_user_id: parentId, referral_code: code }));
    expect(child.status, JSON.stringify(child.body)).toBe(200);
    expect(await storedUser(child.body.data.user_id)).toMatchObject({ parent_user_id: parentId, referred_by: parentId });
    expect(await referralCount(parentId)).toBe(1);
  });
});
