import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { authenticate } from '../../lib/sessions/access-tokens.js';
import { getCompany } from '../../lib/store/company-store.js';
import { getUser } from '../../lib/store/user-store.js';
import { createOwnTable } from '../../scripts/local/dynamodb-local.js';
import { invoke, logIn, newCompany, outboxMessages, sampleRegistration, signUp, testEnvironment, testService } from '../helpers.js';

// The operator commands read their configuration from their environment, as on a deployed stage.
const env = { ...process.env, ...testEnvironment() };
const service = testService({}, { serverSecret: env.SERVER_SECRET });

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const tsx = resolve(root, 'node_modules/.bin/tsx');

/** Runs an operator command; its last line of stdout as JSON, and its stderr. */
async function command(script: string, args: string[]): Promise<{ last: Record<string, any>; stderr: string }> {
  const { stdout, stderr } = await run(tsx, [`scripts/${script}.ts`, ...args], { cwd: root, env });
  return { last: JSON.parse(stdout.trim().split('\n').at(-1)!), stderr };
}

describe('npm run company:create', () => {
  it('creates an active company, prints {"company_id": "<32 hex>", ...} as its last line, and warns that SMS may go anywhere', async () => {
    const { last, stderr } = await command('create-company', ['--name', 'Acme']);
    expect(last).toEqual({
      company_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'active',
      require_verified_phone: false,
      sms_countries: 'all',
    });
    expect(await getCompany(service.app.table, last.company_id)).toMatchObject({ name: 'Acme', status: 'active' });
    expect(stderr).toMatch(/warning: SMS may go to every country/);
  });

  it('takes --require-verified-phone and --sms-countries', async () => {
    const { last, stderr } = await command('create-company', ['--name', 'Strict', '--require-verified-phone', '--sms-countries', 'us,IN']);
    expect(last).toMatchObject({ require_verified_phone: true, sms_countries: ['IN', 'US'] });
    expect(await getCompany(service.app.table, last.company_id)).toMatchObject({
      require_verified_phone: true,
      sms_countries: ['IN', 'US'],
    });
    expect(stderr).not.toMatch(/warning/);
  });

  it('refuses to run without a name, or with a country that is not one', async () => {
    await expect(run(tsx, ['scripts/create-company.ts'], { cwd: root, env })).rejects.toMatchObject({ code: 2 });
    await expect(
      run(tsx, ['scripts/create-company.ts', '--name', 'X', '--sms-countries', 'US,XX'], { cwd: root, env }),
    ).rejects.toMatchObject({ code: 2 });
  });
});

describe('npm run company:update', () => {
  it('changes require_verified_phone and sms_countries, in force for new requests (the company cache is off here)', async () => {
    const { last: created } = await command('create-company', ['--name', 'Changing']);
    const companyId = created.company_id as string;
    const { last } = await command('update-company', ['--company', companyId, '--require-verified-phone', 'on', '--sms-countries', 'IN']);
    expect(last).toEqual({ company_id: companyId, status: 'active', require_verified_phone: true, sms_countries: ['IN'] });
    const company = await getCompany(service.app.table, companyId);
    const refused = await invoke(service.handlers.user_register, {
      path: '/r',
      headers: { CompanyID: companyId },
      body: sampleRegistration(),
    });
    expect(refused.body.error).toEqual([14]);

    const { last: reset, stderr } = await command('update-company', [
      '--company',
      companyId,
      '--require-verified-phone',
      'off',
      '--sms-countries',
      'all',
    ]);
    expect(reset).toEqual({ company_id: companyId, status: 'active', require_verified_phone: false, sms_countries: 'all' });
    expect(stderr).toMatch(/warning: SMS may go to every country/);
    expect(await getCompany(service.app.table, companyId)).not.toHaveProperty('sms_countries');
    expect(company?.updated_at).toEqual(expect.any(Number));
    const accepted = await invoke(service.handlers.user_register, {
      path: '/r',
      headers: { CompanyID: companyId },
      body: sampleRegistration(),
    });
    expect(accepted.status).toBe(200);
  });

  it('disables a company (every call 404, code 3, as for an unknown one) and enables it again', async () => {
    const company = await newCompany(service);
    const register = () =>
      invoke(service.handlers.user_register, { path: '/r', headers: { CompanyID: company.company_id }, body: sampleRegistration() });
    const { last } = await command('update-company', ['--company', company.company_id, '--status', 'disabled']);
    expect(last).toMatchObject({ company_id: company.company_id, status: 'disabled' });
    const refused = await register();
    expect(refused.status).toBe(404);
    expect(refused.body.error).toEqual([3]);
    await command('update-company', ['--company', company.company_id, '--status', 'active']);
    expect((await register()).status).toBe(200);
    await expect(
      run(tsx, ['scripts/update-company.ts', '--company', company.company_id, '--status', 'paused'], { cwd: root, env }),
    ).rejects.toMatchObject({ code: 2 });
  });

  it('refuses an unknown company (exit 1) and bad options (exit 2)', async () => {
    await expect(
      run(tsx, ['scripts/update-company.ts', '--company', 'ab'.repeat(16), '--require-verified-phone', 'on'], { cwd: root, env }),
    ).rejects.toMatchObject({ code: 1 });
    await expect(
      run(tsx, ['scripts/update-company.ts', '--company', 'ab'.repeat(16), '--require-verified-phone', 'yes'], { cwd: root, env }),
    ).rejects.toMatchObject({ code: 2 });
    await expect(run(tsx, ['scripts/update-company.ts', '--company', 'ab'.repeat(16)], { cwd: root, env })).rejects.toMatchObject({
      code: 2,
    });
  });
});

describe('npm run user:disable', () => {
  it('sets status_id 2, ends every session of the user, and the user gets no login SMS (the answer stays 200)', async () => {
    const company = await newCompany(service);
    const account = await signUp(service, company);
    const second = await logIn(service, company, account);
    const { last } = await command('disable-user', ['--company', company.company_id, '--user', account.userId]);
    expect(last).toEqual({ user_id: account.userId, status_id: 2, sessions_ended: 2 });
    expect(await getUser(service.app.table, company.company_id, account.userId)).toMatchObject({ status_id: 2 });
    for (const authorization of [account.authorization, second]) {
      const answer = await invoke(service.handlers.referral_program, {
        method: 'GET',
        path: '/p',
        headers: { CompanyID: company.company_id, Authorization: authorization },
      });
      expect(answer.status).toBe(401);
    }
    const phone = String(account.registration.phone_number);
    const before = outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`).length;
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const send = await invoke(service.handlers.login_phone, {
      path: '/l',
      headers: { CompanyID: company.company_id },
      body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 1 },
    });
    expect(send.status).toBe(200);
    expect(outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)).toHaveLength(before);
    service.clock.reset();
  });

  it('refuses an unknown user (exit 1)', async () => {
    const company = await newCompany(service);
    await expect(
      run(tsx, ['scripts/disable-user.ts', '--company', company.company_id, '--user', 'cd'.repeat(16)], { cwd: root, env }),
    ).rejects.toMatchObject({
      code: 1,
    });
  });
});

describe('npm run employee:create', () => {
  it("registers a company's first employee from standard input and prints a working token", async () => {
    const { stdout: created } = await run(tsx, ['scripts/create-company.ts', '--name', 'Bootstrap'], { cwd: root, env });
    const companyId = JSON.parse(created.trim().split('\n').at(-1)!).company_id;
    const child = execFile(tsx, ['scripts/create-employee.ts', '--company', companyId], { cwd: root, env });
    child.stdin!.end(JSON.stringify(sampleRegistration({ user_type: 2 })));
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((done) => child.on('exit', done));
    expect(code).toBe(0);
    const { user_id: userId, token } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(userId).toMatch(/^[0-9a-f]{32}$/);
    expect(await authenticate(service.app, companyId, `Token ${token}`)).toEqual({
      companyId,
      userId,
      userType: 1,
      sessionId: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await getUser(service.app.table, companyId, userId))?.cretaed_by).toBe('operator');
  });
});

describe('npm run table:copy', () => {
  // As after a point-in-time restore: the restored table is a new one; a company is copied back.
  it("copies one company's items, and only theirs, into another table, replacing items with the same key", async () => {
    const endpoint = inject('dynamodbEndpoint');
    const restored = await createOwnTable(endpoint, 'wallet-auth-restored');
    const live = await createOwnTable(endpoint, 'wallet-auth-live');
    const restoredService = testService({}, { tableName: restored });
    const [company, other] = [await newCompany(restoredService), await newCompany(restoredService)];
    const accounts = [await signUp(restoredService, company), await signUp(restoredService, company)];
    await signUp(restoredService, other);
    const scan = async (tableName: string, prefix: string) => {
      const { Items = [] } = await restoredService.app.table.client.send(
        new ScanCommand({ TableName: tableName, FilterExpression: 'begins_with(pk, :p)', ExpressionAttributeValues: { ':p': prefix } }),
      );
      return Items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`));
    };

    const { last } = await command('copy-table', ['--from', restored, '--to', live, '--company', company.company_id]);
    const expected = await scan(restored, `C#${company.company_id}`);
    expect(last).toEqual({ copied: expected.length });
    expect(expected.length).toBeGreaterThan(2 * 5);
    expect(await scan(live, `C#${company.company_id}`)).toEqual(expected);
    expect(await scan(live, `C#${other.company_id}`)).toEqual([]);
    // The copied users' sessions work against the live table.
    const liveService = testService({}, { tableName: live, serverSecret: restoredService.app.config.serverSecret });
    for (const account of accounts) {
      expect(await authenticate(liveService.app, company.company_id, account.authorization)).toMatchObject({ userId: account.userId });
    }
    await expect(run(tsx, ['scripts/copy-table.ts', '--from', live, '--to', live], { cwd: root, env })).rejects.toMatchObject({ code: 2 });
  });
});
