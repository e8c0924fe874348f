// pinMatches against DynamoDB Local: a right PIN whose hash names an older version of the server
// secret is hashed again under the current one, by a conditional write of that one attribute.
// The source of the secret is a versioned one in memory, shared by two "containers": one
// before the rotation, one after.
import { createHmac, hkdfSync, randomBytes, scryptSync } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { pinMatches } from '../../lib/pins/pin-hashes.js';
import { hashPin, PRODUCTION_HASH_COST, verifyPin } from '../../lib/secrets/hashing.js';
import { userKey } from '../../lib/store/keys.js';
import { getUser } from '../../lib/store/user-store.js';
import { type Account, type InProcessService, newCompany, signUp, testService } from '../helpers.js';
import { versionedSecret } from '../secrets/versioned-secret.js';

const PINS = { login_pin: '4826', transaction_pin: '739146' };
const secret = versionedSecret(1);
const before = testService({}, { secretSource: secret, hashCost: PRODUCTION_HASH_COST });
let after: InProcessService;
let company: Company;

beforeAll(async () => {
  company = await newCompany(before);
  // The first container reads version 1 (with a sign-up) before the secret rotates; then a new container starts.
  await signUp(before, company, PINS);
  secret.rotate();
  after = testService({}, { secretSource: secret, hashCost: PRODUCTION_HASH_COST });
});

const stored = async (account: Account) => (await getUser(after.app.table, company.company_id, account.userId, true))!;
const check = (account: Account, pinType: 'login' | 'transaction', pin: string, storedHash: string) =>
  pinMatches(after.app, { companyId: company.company_id, userId: account.userId, pinType, pin, storedHash });

describe('pinMatches', () => {
  it('hashes a right PIN of an older version again under the current one; the new hash verifies', async () => {
    const account = await signUp(before, company, PINS);
    const old = await stored(account);
    expect(old.login_pin_hash).toMatch(/^hmac-scrypt\$1\$/);

    expect(await check(account, 'login', PINS.login_pin, old.login_pin_hash)).toBe(true);
    const renewed = await stored(account);
    expect(renewed.login_pin_hash).toMatch(/^hmac-scrypt\$2\$4096\$8\$1\$/);
    expect(await verifyPin(after.app.keys, PINS.login_pin, renewed.login_pin_hash)).toBe(true);
    expect(await verifyPin(after.app.keys, '4827', renewed.login_pin_hash)).toBe(false);
    // Only the PIN that was checked; nothing else of the user.
    expect(renewed).toEqual({ ...old, login_pin_hash: renewed.login_pin_hash });

    // A hash of the current version stays as it is.
    expect(await check(account, 'login', PINS.login_pin, renewed.login_pin_hash)).toBe(true);
    expect((await stored(account)).login_pin_hash).toBe(renewed.login_pin_hash);
  });

  it('changes nothing for a wrong PIN', async () => {
    const account = await signUp(before, company, PINS);
    const old = await stored(account);
    expect(await check(account, 'transaction', '739147', old.transaction_pin_hash)).toBe(false);
    expect(await check(account, 'login', PINS.transaction_pin, old.login_pin_hash)).toBe(false);
    expect(await stored(account)).toEqual(old);
  });

  it('never overwrites a hash changed since it was read (a PIN reset meanwhile)', async () => {
    const account = await signUp(before, company, PINS);
    const old = await stored(account);
    const reset = await hashPin(after.app.keys, '204863', after.app.hashCost.pin);
    await after.app.table.client.send(
      new UpdateCommand({
        TableName: after.app.table.name,
        Key: userKey(company.company_id, account.userId),
        UpdateExpression: 'SET transaction_pin_hash = :reset',
        ExpressionAttributeValues: { ':reset': reset },
      }),
    );
    // The check of the hash read before the reset is right for that hash; the reset stands.
    expect(await check(account, 'transaction', PINS.transaction_pin, old.transaction_pin_hash)).toBe(true);
    expect((await stored(account)).transaction_pin_hash).toBe(reset);
  });

  it('hashes a PIN stored the old way (scrypt$, before key versions) again under the current version', async () => {
    const account = await signUp(before, company, PINS);
    // Built as the code before key versions did: HMAC-SHA256 under version 1's pepper, then scrypt N=2^15, p=3.
    const pepper = Buffer.from(hkdfSync('sha256', (await secret.version(1))!.secret, 'wallet-auth', 'pin-pepper', 32));
    const salt = randomBytes(16);
    const hash = scryptSync(createHmac('sha256', pepper).update(PINS.login_pin).digest(), salt, 32, {
      N: 2 ** 15,
      r: 8,
      p: 3,
      maxmem: 64 * 1024 * 1024,
    });
    const legacy = ['scrypt', 32768, 8, 3, salt.toString('base64'), hash.toString('base64')].join('$');
    await after.app.table.client.send(
      new UpdateCommand({
        TableName: after.app.table.name,
        Key: userKey(company.company_id, account.userId),
        UpdateExpression: 'SET login_pin_hash = :legacy',
        ExpressionAttributeValues: { ':legacy': legacy },
      }),
    );
    expect(await check(account, 'login', PINS.login_pin, legacy)).toBe(true);
    const renewed = (await stored(account)).login_pin_hash;
    expect(renewed).toMatch(/^hmac-scrypt\$2\$4096\$8\$1\$/);
    expect(await verifyPin(after.app.keys, PINS.login_pin, renewed)).toBe(true);
  });
});
