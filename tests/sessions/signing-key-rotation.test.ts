// npm run signing-key:rotate (API contract 3.12): a key is added to the stored set, published
// before it signs, and the set lives where the service reads it: a local file, or the two SSM
// parameters of a deployed stage (the private set a SecureString, the public one without `d`).

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config.js';
import { NEW_KEY_LEAD_SECONDS } from '../../lib/secrets/signing-keys.js';
import type { OperatorMain } from '../../scripts/operator-app.js';
import { main as rotate } from '../../scripts/rotate-signing-key.js';
import { startFakeSsm } from '../harness/ssm-fake.js';
import { inProcessService, invoke, newCompany, runOperator, signUp, TEST_HASH_COST, testEnvironment } from '../helpers.js';

const run = (main: OperatorMain, args: string[], env: Record<string, string | undefined>) => runOperator(main, args, env);

const now = () => Math.floor(Date.now() / 1000);
/** The tests' environment without its in-memory key set, so the command and the service use the stored one. */
const stored = (settings: Record<string, string>) => ({ ...testEnvironment(), SIGNING_KEYS: '', ...settings });

describe('npm run signing-key:rotate', () => {
  it('makes a stage’s first key signing at once, then adds one published 10 minutes before it signs, never printing a private key', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'wallet-keys-')), 'signing-keys.json');
    const env = stored({ SIGNING_KEYS_FILE: file });
    const first = await run(rotate, [], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.last).toEqual({
      kid: expect.any(String),
      alg: 'ES256',
      signs_from: expect.any(Number),
      published: [first.last.kid],
      dropped: [],
    });
    expect(Math.abs(first.last.signs_from - now())).toBeLessThanOrEqual(2);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await run(rotate, [], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.last.published).toEqual([first.last.kid, second.last.kid]);
    expect(second.last.signs_from - now()).toBeGreaterThanOrEqual(NEW_KEY_LEAD_SECONDS - 2);
    // The stored set holds both private keys; the command printed neither.
    const set = JSON.parse(readFileSync(file, 'utf8'));
    expect(set.keys.map((key: { kid: string }) => key.kid)).toEqual([first.last.kid, second.last.kid]);
    for (const key of set.keys) {
      expect(key.jwk.d).toMatch(/^[\w-]{43}$/);
      expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(key.jwk.d);
    }

    // The service on that file signs with the first key until the second's time comes, and lists both.
    const service = inProcessService(readConfig(env), { hashCost: TEST_HASH_COST });
    const company = await newCompany(service);
    const account = await signUp(service, company);
    expect(decodeProtectedHeader(account.authorization.slice('Token '.length)).kid).toBe(first.last.kid);
    const jwks = JSON.parse((await service.wellKnown({ rawPath: '/.well-known/jwks.json' } as never, {} as never)).body ?? '');
    expect(jwks.keys.map((key: { kid: string }) => key.kid)).toEqual([first.last.kid, second.last.kid]);

    // --urgent signs at once and drops every other key; a mistyped option and a key set that lives in the environment are refused.
    const urgent = await run(rotate, ['--urgent'], env);
    expect(Math.abs(urgent.last.signs_from - now())).toBeLessThanOrEqual(2);
    expect(urgent.last.published).toEqual([urgent.last.kid]);
    expect(urgent.last.dropped).toEqual([first.last.kid, second.last.kid]);
    expect((await run(rotate, ['--urgnet'], env)).code).toBe(2);
    expect((await run(rotate, [], { ...env, SIGNING_KEYS: JSON.stringify(set) })).code).toBe(2);
  });

  it('adds a key of --alg, else of ACCESS_TOKEN_ALG: ES256 to RS256, the service listing both in the JWKS with their alg', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'wallet-keys-')), 'signing-keys.json');
    const env = stored({ SIGNING_KEYS_FILE: file });
    const first = await run(rotate, [], env);
    expect(first.last.alg).toBe('ES256');
    const moved = await run(rotate, ['--alg', 'RS256'], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.last).toMatchObject({ alg: 'RS256', published: [first.last.kid, moved.last.kid], dropped: [] });
    expect(moved.stderr).toContain(`RS256 key ${moved.last.kid} added`);
    const set = JSON.parse(readFileSync(file, 'utf8'));
    expect(set.keys.map(({ alg, jwk }: { alg: string; jwk: { kty: string } }) => [alg, jwk.kty])).toEqual([
      ['ES256', 'EC'],
      ['RS256', 'RSA'],
    ]);
    // RSA 2048, e = 65537; none of its private members printed.
    const rsa = set.keys[1].jwk;
    expect([Buffer.from(rsa.n, 'base64url').length * 8, rsa.e]).toEqual([2048, 'AQAB']);
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(moved.stdout + moved.stderr).not.toContain(rsa[member]);

    // A container of that stage: the JWKS lists both, each with its alg, and the discovery document both algorithms.
    const service = inProcessService(readConfig({ ...env, ACCESS_TOKEN_ALG: 'RS256' }), { hashCost: TEST_HASH_COST });
    const wellKnown = async (path: string) => JSON.parse((await service.wellKnown({ rawPath: path } as never, {} as never)).body ?? '');
    const jwks = await wellKnown('/.well-known/jwks.json');
    expect(jwks.keys.map(({ kid, kty, alg, use }: Record<string, string>) => ({ kid, kty, alg, use }))).toEqual([
      { kid: first.last.kid, kty: 'EC', alg: 'ES256', use: 'sig' },
      { kid: moved.last.kid, kty: 'RSA', alg: 'RS256', use: 'sig' },
    ]);
    expect((await wellKnown('/.well-known/openid-configuration')).id_token_signing_alg_values_supported).toEqual(['ES256', 'RS256']);

    // Without --alg, the stage's ACCESS_TOKEN_ALG; another algorithm is refused, and nothing written.
    const next = await run(rotate, [], { ...env, ACCESS_TOKEN_ALG: 'RS256' });
    expect(next.last.alg).toBe('RS256');
    const refused = await run(rotate, ['--alg', 'HS256'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--alg must be one of ES256, RS256, not "HS256"');
    expect(JSON.parse(readFileSync(file, 'utf8')).keys).toHaveLength(3);
  });

  it('writes a deployed stage’s two SSM parameters: the private set a SecureString, the public one without private parts', async () => {
    const ssm = await startFakeSsm();
    try {
      const stage = `/wallet-auth/test-${randomBytes(4).toString('hex')}`;
      const env = stored({
        SIGNING_KEYS_FILE: '',
        SIGNING_KEYS_PARAMETER: `${stage}/signing-keys`,
        SIGNING_PUBLIC_KEYS_PARAMETER: `${stage}/signing-keys-public`,
        SSM_ENDPOINT: ssm.endpoint,
      });
      const rotated = await run(rotate, [], env);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(ssm.types.get(`${stage}/signing-keys`)).toBe('SecureString');
      expect(ssm.types.get(`${stage}/signing-keys-public`)).toBe('String');
      // A container of that stage signs with it and verifies against the public parameter.
      const service = inProcessService(readConfig(env), { hashCost: TEST_HASH_COST });
      const company = await newCompany(service);
      const account = await signUp(service, company);
      expect(decodeProtectedHeader(account.authorization.slice('Token '.length)).kid).toBe(rotated.last.kid);
      const devices = await invoke(service.handlers.devices, {
        method: 'GET',
        path: '/wallet/v3/auth/devices',
        headers: { CompanyID: company.company_id, Authorization: account.authorization },
      });
      expect(devices.status).toBe(200);
      expect(ssm.requests).toContain(`${stage}/signing-keys-public`);
      // A second rotation reads the private set back and keeps its key.
      const again = await run(rotate, [], env);
      expect(again.last.published).toEqual([rotated.last.kid, again.last.kid]);
    } finally {
      await ssm.close();
    }
  });
});
