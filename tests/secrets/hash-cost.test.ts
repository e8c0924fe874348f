// The hash cost belongs to the composition root: an app built from a configuration alone (as
// every function builds its own) hashes at production's settings; only a part handed in lowers
// it. tests/e2e/registration-over-http.test.ts checks the hashes the deployed functions store.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app.js';
import { readConfig } from '../../lib/config.js';
import { pinMatches } from '../../lib/pins/pin-hashes.js';
import { PRODUCTION_HASH_COST, verifyPassword, verifyPin } from '../../lib/secrets/hashing.js';
import { getUser } from '../../lib/store/user-store.js';
import { newCompany, signUp, TEST_HASH_COST, testEnvironment, testService } from '../helpers.js';

/** OWASP's scrypt N=2^14 p=5 for passwords, N=2^12 p=1 for PINs (docs/security.md), written out. */
const PRODUCTION = { password: { N: 16384, r: 8, p: 5 }, pin: { N: 4096, r: 8, p: 1 } };

describe('the hash cost', () => {
  it("is production's for an app built from a configuration, whatever its environment says", () => {
    // Names someone might reach for; readConfig reads none of them, and no setting reaches the cost.
    const environment = { ...testEnvironment(), HASH_COST: 'test', SCRYPT_N: '16', PASSWORD_SCRYPT_N: '16', PIN_SCRYPT_N: '16' };
    const app = createApp(readConfig(environment));
    expect(app.hashCost).toEqual(PRODUCTION);
    expect(PRODUCTION_HASH_COST).toEqual(PRODUCTION);
    expect(JSON.stringify(readConfig(environment))).not.toMatch(/scrypt|hash_?cost/i);
  });

  it('is the one handed in otherwise, and a hash of either cost verifies in an app of the other', async () => {
    const cheap = testService();
    const production = testService({}, { hashCost: PRODUCTION_HASH_COST });
    expect(cheap.app.hashCost).toEqual(TEST_HASH_COST);
    const company = await newCompany(cheap);
    const account = await signUp(cheap, company, { login_pin: '4826' });
    const user = (await getUser(cheap.app.table, company.company_id, account.userId, true))!;
    expect(user.password_hash).toMatch(/^scrypt\$16\$8\$1\$/);
    expect(user.login_pin_hash).toMatch(/^hmac-scrypt\$1\$16\$8\$1\$/);
    expect(await verifyPassword(production.app.keys, 'correct horse battery', user.password_hash)).toBe(true);
    expect(await verifyPin(production.app.keys, '4826', user.login_pin_hash)).toBe(true);
    expect(await verifyPin(production.app.keys, '4827', user.login_pin_hash)).toBe(false);

    // A right PIN whose hash names another setting is made again at the checking app's.
    const check = { companyId: company.company_id, userId: account.userId, pinType: 'login' as const, pin: '4826' };
    expect(await pinMatches(cheap.app, { ...check, storedHash: user.login_pin_hash })).toBe(true);
    expect((await getUser(cheap.app.table, company.company_id, account.userId, true))?.login_pin_hash).toBe(user.login_pin_hash);
    expect(await pinMatches(production.app, { ...check, storedHash: user.login_pin_hash })).toBe(true);
    const renewed = (await getUser(cheap.app.table, company.company_id, account.userId, true))!.login_pin_hash;
    expect(renewed).toMatch(/^hmac-scrypt\$1\$4096\$8\$1\$/);
    expect(await verifyPin(cheap.app.keys, '4826', renewed)).toBe(true);
  });
});
