import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { readConfig } from '../../lib/config.js';
import { pinMatches } from '../../lib/pins/pin-hashes.js';
import { authenticate } from '../../lib/sessions/access-tokens.js';
import { getCompany } from '../../lib/store/company-store.js';
import { queryStaffChain } from '../../lib/store/staff-store.js';
import { getUser } from '../../lib/store/user-store.js';
import { main as copyTable } from '../../scripts/copy-table.js';
import { main as createCompany } from '../../scripts/create-company.js';
import { main as createEmployee } from '../../scripts/create-employee.js';
import { main as disableUser } from '../../scripts/disable-user.js';
import type { OperatorMain } from '../../scripts/operator-app.js';
import { main as secretVersions } from '../../scripts/secret-versions.js';
import { main as updateCompany } from '../../scripts/update-company.js';
import { createOwnTable } from '../harness/dynamodb-local.js';
import { startFakeSsm } from '../harness/ssm-fake.js';
import {
  inProcessService,
  invoke,
  logIn,
  newCompany,
  type OperatorOutcome as Outcome,
  outboxMessages,
  randomPhoneNumber,
  runOperator,
  sampleRegistration,
  signUp,
  TEST_HASH_COST,
  testEnvironment,
  testService,
} from '../helpers.js';

// The operator commands read their configuration from their environment, as on a deployed stage.
// Each runs in this process through its main (argv and an environment in; exit code, stdout and
// stderr out); 'npm run employee:create' below runs one as its own process, as an operator does.
const env = { ...process.env, ...testEnvironment() };
const service = testService({}, { serverSecret: env.SERVER_SECRET });

/** The limits every company has until it sets its own: the test environment's configured defaults. */
const OWN_ADDRESS = `198.18.${randomInt(256)}.${randomInt(256)}`;
const DEFAULT_LIMITS = { sms_per_hour: 1000, sms_per_prefix_per_hour: 0, sends_per_address_per_hour: 0, verifies_per_address: 0 };

/** Runs an operator command's main in this process, as npm would run it with this environment and standard input. */
const run = (main: OperatorMain, args: string[], commandEnv: Record<string, string | undefined> = env, input = ''): Promise<Outcome> =>
  runOperator(main, args, commandEnv, input);

/** Runs a command expected to succeed: its last line of stdout as JSON, and its stderr. */
async function command(main: OperatorMain, args: string[]): Promise<Outcome> {
  const outcome = await run(main, args);
  expect(outcome.code, outcome.stderr).toBe(0);
  return outcome;
}

/** The exit code of a command expected to fail. */
const exitCode = async (main: OperatorMain, args: string[]) => (await run(main, args)).code;

describe('npm run company:create', () => {
  it('creates an active company, prints {"company_id": "<32 hex>", ...} as its last line, and warns that SMS may go anywhere', async () => {
    const { last, stderr } = await command(createCompany, ['--name', 'Acme']);
    expect(last).toEqual({
      company_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'active',
      require_verified_phone: false,
      sms_countries: 'all',
      ...DEFAULT_LIMITS,
    });
    expect(await getCompany(service.app.table, last.company_id)).toMatchObject({ name: 'Acme', status: 'active' });
    expect(stderr).toMatch(/warning: SMS may go to every country/);
  });

  it('takes --require-verified-phone and --sms-countries', async () => {
    const { last, stderr } = await command(createCompany, ['--name', 'Strict', '--require-verified-phone', '--sms-countries', 'us,IN']);
    expect(last).toMatchObject({ require_verified_phone: true, sms_countries: ['IN', 'US'] });
    expect(await getCompany(service.app.table, last.company_id)).toMatchObject({
      require_verified_phone: true,
      sms_countries: ['IN', 'US'],
    });
    expect(stderr).not.toMatch(/warning/);
  });

  it('takes --require-dpop on create and on|off on update: logins without a DPoP proof are then refused (contract 3.17)', async () => {
    const { last } = await command(createCompany, ['--name', 'Bound', '--require-dpop']);
    expect(last).toMatchObject({ require_dpop: true });
    expect(await getCompany(service.app.table, last.company_id)).toMatchObject({ require_dpop: true });
    const refused = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: last.company_id },
      body: sampleRegistration(),
    });
    expect([refused.status, refused.body.data.errors?.[0]?.field]).toEqual([400, 'DPoP']);
    await command(updateCompany, ['--company', last.company_id, '--require-dpop', 'off']);
    expect((await getCompany(service.app.table, last.company_id))?.require_dpop).toBe(false);
  });

  it('refuses to run without a name, or with a country that is not one', async () => {
    expect(await exitCode(createCompany, [])).toBe(2);
    expect(await exitCode(createCompany, ['--name', 'X', '--sms-countries', 'US,XX'])).toBe(2);
  });
});

describe('npm run company:update', () => {
  it('changes require_verified_phone and sms_countries, in force for new requests (the company cache is off here)', async () => {
    const { last: created } = await command(createCompany, ['--name', 'Changing']);
    const companyId = created.company_id as string;
    const { last } = await command(updateCompany, ['--company', companyId, '--require-verified-phone', 'on', '--sms-countries', 'IN']);
    expect(last).toEqual({
      company_id: companyId,
      status: 'active',
      require_verified_phone: true,
      sms_countries: ['IN'],
      ...DEFAULT_LIMITS,
    });
    const company = await getCompany(service.app.table, companyId);
    const refused = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: companyId },
      body: sampleRegistration(),
    });
    expect(refused.body.error).toEqual([14]);

    const { last: reset, stderr } = await command(updateCompany, [
      '--company',
      companyId,
      '--require-verified-phone',
      'off',
      '--sms-countries',
      'all',
    ]);
    expect(reset).toEqual({
      company_id: companyId,
      status: 'active',
      require_verified_phone: false,
      sms_countries: 'all',
      ...DEFAULT_LIMITS,
    });
    expect(stderr).toMatch(/warning: SMS may go to every country/);
    expect(await getCompany(service.app.table, companyId)).not.toHaveProperty('sms_countries');
    expect(company?.updated_at).toEqual(expect.any(Number));
    const accepted = await invoke(service.handlers.userRegister, {
      path: '/r',
      headers: { CompanyID: companyId },
      body: sampleRegistration(),
    });
    expect(accepted.status).toBe(200);
  });

  it('disables a company (every call 404, code 3, as for an unknown one) and enables it again', async () => {
    const company = await newCompany(service);
    const register = () =>
      invoke(service.handlers.userRegister, { path: '/r', headers: { CompanyID: company.company_id }, body: sampleRegistration() });
    const { last } = await command(updateCompany, ['--company', company.company_id, '--status', 'disabled']);
    expect(last).toMatchObject({ company_id: company.company_id, status: 'disabled' });
    const refused = await register();
    expect(refused.status).toBe(404);
    expect(refused.body.error).toEqual([3]);
    await command(updateCompany, ['--company', company.company_id, '--status', 'active']);
    expect((await register()).status).toBe(200);
    expect(await exitCode(updateCompany, ['--company', company.company_id, '--status', 'paused'])).toBe(2);
  });

  it("sets a company's own limits, in force for new requests, and puts them back to the default", async () => {
    const company = await newCompany(service);
    const { last } = await command(updateCompany, [
      '--company',
      company.company_id,
      '--sms-per-hour',
      '2',
      '--sms-per-prefix-per-hour',
      '7',
      '--sends-per-address-per-hour',
      '50',
      '--verifies-per-address',
      '60',
    ]);
    expect(last).toMatchObject({ sms_per_hour: 2, sms_per_prefix_per_hour: 7, sends_per_address_per_hour: 50, verifies_per_address: 60 });
    expect(await getCompany(service.app.table, company.company_id)).toMatchObject({ sms_per_hour: 2, verifies_per_address: 60 });
    const send = () =>
      invoke(service.handlers.loginPhone, {
        path: '/l',
        headers: { CompanyID: company.company_id },
        body: { dial_code: '+1', phone_number: randomPhoneNumber(), user_type: 2, otp_type: 2 },
        // An address of its own: per-address counters are shared by every test of the run (127.0.0.1 is the HTTP tests').
        sourceIp: OWN_ADDRESS,
      });
    expect([(await send()).status, (await send()).status, (await send()).status]).toEqual([200, 200, 429]);

    const { last: reset } = await command(updateCompany, [
      '--company',
      company.company_id,
      '--sms-per-hour',
      'default',
      '--verifies-per-address',
      'default',
    ]);
    expect(reset).toMatchObject({ sms_per_hour: 1000, sms_per_prefix_per_hour: 7, verifies_per_address: 0 });
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_per_hour');
    expect((await send()).status).toBe(200);
    for (const bad of [
      ['--sms-per-hour', '0'],
      ['--verifies-per-address', '-1'],
      ['--sms-per-prefix-per-hour', 'many'],
    ]) {
      expect(await exitCode(updateCompany, ['--company', company.company_id, ...bad])).toBe(2);
    }
  });

  it('refuses an unknown company (exit 1) and bad options (exit 2)', async () => {
    expect(await exitCode(updateCompany, ['--company', 'ab'.repeat(16), '--require-verified-phone', 'on'])).toBe(1);
    expect(await exitCode(updateCompany, ['--company', 'ab'.repeat(16), '--require-verified-phone', 'yes'])).toBe(2);
    expect(await exitCode(updateCompany, ['--company', 'ab'.repeat(16)])).toBe(2);
  });
});

describe('npm run company:update, SMS text (contract 7)', () => {
  const HINDI = '{code} आपका {brand} सत्यापन कोड है। {minutes} मिनट तक मान्य।';

  /** Runs company:update expecting a refusal: exit 2, nothing on stdout, the reason on stderr. */
  async function refused(args: string[]): Promise<string> {
    const failure = await run(updateCompany, args);
    expect(failure.code).toBe(2);
    expect(failure.stdout).toBe('');
    return failure.stderr;
  }

  it('sets templates, the default language, the app hash and the WebOTP domain; a send in Hindi shows them', async () => {
    const { last: created } = await command(createCompany, ['--name', 'Chai Pay']);
    const companyId = created.company_id as string;
    const { last, stderr } = await command(updateCompany, [
      '--company',
      companyId,
      '--sms-template',
      `hi=${HINDI}`,
      '--sms-template',
      'EN=Your {brand} code is {code}.',
      '--sms-default-language',
      'en',
      '--sms-app-hash',
      'FA+9qCX9VSu',
    ]);
    expect(last).toEqual({
      company_id: companyId,
      status: 'active',
      require_verified_phone: false,
      sms_countries: 'all',
      ...DEFAULT_LIMITS,
      sms_text: { templates: { hi: HINDI, en: 'Your {brand} code is {code}.' }, default_language: 'en', app_hash: 'FA+9qCX9VSu' },
    });
    expect(stderr).toMatch(/sms text hi: 1 SMS \(UCS-2, 65 units with a 6-digit code\)/);
    expect(await getCompany(service.app.table, companyId)).toMatchObject({ sms_text: last.sms_text });

    const send = async (acceptLanguage: string) => {
      const phone = randomPhoneNumber();
      const answer = await invoke(service.handlers.loginPhone, {
        path: '/l',
        headers: { CompanyID: companyId, 'Accept-Language': acceptLanguage },
        body: { dial_code: '+1', phone_number: phone, user_type: 2, otp_type: 2 },
      });
      expect(answer.status).toBe(200);
      return outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`)[0];
    };
    expect(await send('hi-IN,hi;q=0.9,en;q=0.8')).toMatch(/^\d{6} आपका Chai Pay सत्यापन कोड है। 5 मिनट तक मान्य।\nFA\+9qCX9VSu$/);
    expect(await send('fr')).toMatch(/^Your Chai Pay code is \d{6}\.\nFA\+9qCX9VSu$/);

    // LANG= removes a template, an empty value a setting; with nothing left the company prints as before.
    const { last: webOtp } = await command(updateCompany, [
      '--company',
      companyId,
      '--sms-template',
      'hi=',
      '--sms-webotp-domain',
      'Wallet.Example.com',
    ]);
    expect(webOtp.sms_text).toEqual({
      templates: { en: 'Your {brand} code is {code}.' },
      default_language: 'en',
      app_hash: 'FA+9qCX9VSu',
      webotp_domain: 'wallet.example.com',
    });
    expect(await send('hi')).toMatch(/^Your Chai Pay code is (\d{6})\.\nFA\+9qCX9VSu\n@wallet\.example\.com #\1$/);
    const { last: cleared } = await command(updateCompany, [
      '--company',
      companyId,
      '--sms-template',
      'en=',
      '--sms-default-language',
      '',
      '--sms-app-hash',
      '',
      '--sms-webotp-domain',
      '',
    ]);
    expect(cleared).toEqual({
      company_id: companyId,
      status: 'active',
      require_verified_phone: false,
      sms_countries: 'all',
      ...DEFAULT_LIMITS,
    });
    expect(await getCompany(service.app.table, companyId)).not.toHaveProperty('sms_text');
    expect(await send('hi')).toMatch(/^\d{6} is your Chai Pay verification code\. It expires in 5 minutes\. Never share it\.$/);
  });

  it('refuses, with exit 2 and the reason on stderr, and changes nothing', async () => {
    const company = await newCompany(service);
    const id = ['--company', company.company_id];
    // Every problem of a command at once, one a line.
    const problems = await refused([
      ...id,
      '--sms-template',
      'en=Your code',
      '--sms-template',
      'fr={code} pour {name}',
      '--sms-template',
      'en_US={code}',
      '--sms-app-hash',
      'FA+9qCX9V',
      '--sms-webotp-domain',
      'https://wallet.example.com',
    ]);
    expect(problems).toMatch(/template en: no \{code\}/);
    expect(problems).toMatch(/template fr: unknown placeholder \{name\}/);
    expect(problems).toMatch(/template "en_US": not a BCP 47 language tag/);
    expect(problems).toMatch(/app hash "FA\+9qCX9V": an SMS Retriever app hash is 11 characters/);
    expect(problems).toMatch(/WebOTP domain "https:\/\/wallet.example.com": not a domain name/);
    expect(await refused([...id, '--sms-template', '{code}'])).toMatch(/--sms-template takes LANG=TEXT/);
    expect(await refused([...id, '--sms-default-language', 'hi'])).toMatch(/default language hi: the company has no template in it/);
    // 3 SMS: 301 characters and a 6-digit code in GSM-7; 129 Devanagari letters and a code in UCS-2.
    const sizes = await refused([...id, '--sms-template', `en={code}${'a'.repeat(301)}`, '--sms-template', `hi={code}${'क'.repeat(129)}`]);
    expect(sizes).toMatch(/template en: the message would need 3 SMS \(307 GSM-7 characters.*\); at most 2/);
    expect(sizes).toMatch(/template hi: the message would need 3 SMS \(135 UCS-2 \(UTF-16\) units/);
    expect(await getCompany(service.app.table, company.company_id)).not.toHaveProperty('sms_text');
  });

  it('refuses an app hash that would push a stored template over 2 SMS, counting the hash line', async () => {
    const company = await newCompany(service);
    const id = ['--company', company.company_id];
    // 128 + a code: 134 UCS-2 units, 2 SMS exactly; the hash line makes it 146.
    const { last } = await command(updateCompany, [...id, '--sms-template', `hi={code}${'क'.repeat(128)}`]);
    expect(last.sms_text.templates.hi).toHaveLength(134);
    expect(await refused([...id, '--sms-app-hash', 'FA+9qCX9VSu'])).toMatch(/template hi: the message would need 3 SMS \(146 UCS-2/);
    expect((await getCompany(service.app.table, company.company_id))?.sms_text).toEqual({ templates: last.sms_text.templates });
  });
});

describe('npm run user:disable', () => {
  it('sets status_id 2, ends every session of the user, and the user gets no login SMS (the answer stays 200)', async () => {
    const company = await newCompany(service);
    const account = await signUp(service, company);
    const second = await logIn(service, company, account);
    const { last } = await command(disableUser, ['--company', company.company_id, '--user', account.userId]);
    expect(last).toEqual({ user_id: account.userId, status_id: 2, sessions_ended: 2 });
    expect(await getUser(service.app.table, company.company_id, account.userId)).toMatchObject({ status_id: 2 });
    for (const authorization of [account.authorization, second]) {
      const answer = await invoke(service.handlers.referralProgram, {
        method: 'GET',
        path: '/p',
        headers: { CompanyID: company.company_id, Authorization: authorization },
      });
      expect(answer.status).toBe(401);
    }
    const phone = String(account.registration.phone_number);
    const before = outboxMessages(service.app.config.sms.outboxFile, `+1${phone}`).length;
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    const send = await invoke(service.handlers.loginPhone, {
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
    expect(await exitCode(disableUser, ['--company', company.company_id, '--user', 'cd'.repeat(16)])).toBe(1);
  });
});

/** Runs a command as an operator does (tsx scripts/<name>.ts, as npm run does): its exit code, stdout and stderr. */
function spawnCommand(script: string, args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = resolve(import.meta.dirname, '../..');
  const child = execFile(resolve(root, 'node_modules/.bin/tsx'), [`scripts/${script}.ts`, ...args], { cwd: root, env });
  child.stdin!.end(input);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, ...output })));
}

describe('npm run employee:create', () => {
  // The one command run as its own process: arguments, standard input, stdout, stderr and exit code as an operator sees them.
  it("registers a company's first employee, its admin, from standard input and prints a working token, as its own process", async () => {
    const { last: created } = await command(createCompany, ['--name', 'Bootstrap']);
    const companyId = created.company_id;
    const [done, refused] = await Promise.all([
      spawnCommand('create-employee', ['--company', companyId], JSON.stringify(sampleRegistration({ user_type: 2 }))),
      spawnCommand('create-employee', [], ''),
    ]);
    expect(done.code, done.stderr).toBe(0);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/^usage: npm run employee:create/m);
    const { user_id: userId, token, role } = JSON.parse(done.stdout.trim().split('\n').at(-1)!);
    expect(userId).toMatch(/^[0-9a-f]{32}$/);
    // The company's first employee is its back-office admin (API contract 3.14), and counted as one.
    expect(role).toBe('admin');
    expect(((await getUser(service.app.table, companyId, userId)) as { role?: string } | undefined)?.role).toBe('admin');
    expect(await authenticate(service.app, companyId, `Token ${token}`)).toEqual({
      companyId,
      userId,
      userType: 1,
      sessionId: expect.stringMatching(/^[0-9a-f]{32}$/),
      // Registration proves no device: the session is SMS-strength (contract 3.15), so the back
      // office's strong-only routes wait for the admin's PIN login on a settled device.
      session: {
        began: 'register',
        beganAt: expect.any(Number),
        acr: 'sms',
        authTime: expect.any(Number),
        credentialAt: undefined,
        deviceKey: undefined,
      },
    });
    expect((await getUser(service.app.table, companyId, userId))?.cretaed_by).toBe('operator');
  });

  it('gives the role --role names, support or admin, at once, recorded by the operator; any other is refused (exit 2)', async () => {
    const company = await newCompany(service);
    const body = JSON.stringify(sampleRegistration({ user_type: 2 }));
    const support = await run(createEmployee, ['--company', company.company_id, '--role', 'support'], env, body);
    expect(support.code, support.stderr).toBe(0);
    const { user_id: userId, role } = JSON.parse(support.stdout.trim().split('\n').at(-1)!);
    expect(role).toBe('support');
    expect(((await getUser(service.app.table, company.company_id, userId)) as { role?: string })?.role).toBe('support');
    const records = (await queryStaffChain(service.app.table, company.company_id)).map(
      ({ action, actor_id }) => `${action} by ${actor_id}`,
    );
    expect(records).toEqual(['employee_register by operator', 'role by operator']);
    const refused = await run(createEmployee, ['--company', company.company_id, '--role', 'owner'], env, body);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--role admin\|support/);
  });
});

describe('npm run employee:create, refusals', () => {
  it('refuses a body the registration refuses, naming each field on stderr, and an unknown company (exit 1)', async () => {
    const company = await newCompany(service);
    const invalid = await run(createEmployee, ['--company', company.company_id], env, JSON.stringify(sampleRegistration({ email: 'no' })));
    expect(invalid).toMatchObject({ code: 1, stdout: '' });
    expect(invalid.stderr).toMatch(/^could not create the employee: BAD_REQUEST\n {2}email: /);
    const unknown = await run(createEmployee, ['--company', 'ab'.repeat(16)], env, JSON.stringify(sampleRegistration()));
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/could not create the employee: COMPANY_NOT_FOUND/);
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

    const { last } = await command(copyTable, ['--from', restored, '--to', live, '--company', company.company_id]);
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
    expect(await exitCode(copyTable, ['--from', live, '--to', live])).toBe(2);
  });
});

describe('npm run secret:versions', () => {
  it('counts PIN hashes by secret version, and the count moves as right PIN checks hash them again', async () => {
    // The secret in a loopback SSM, as on a deployed stage: the command reads its current version there.
    const ssm = await startFakeSsm();
    try {
      const parameter = `/wallet-auth/test-${randomBytes(4).toString('hex')}/server-secret`;
      const ssmEnv = { ...env, SERVER_SECRET: '', SERVER_SECRET_PARAMETER: parameter, SSM_ENDPOINT: ssm.endpoint };
      const container = () => inProcessService(readConfig(ssmEnv), { hashCost: TEST_HASH_COST });
      ssm.put(parameter, randomBytes(32).toString('base64'));
      const before = container();
      const company = await newCompany(before);
      const [first] = [await signUp(before, company), await signUp(before, company)];
      ssm.put(parameter, randomBytes(32).toString('base64'));
      const after = container();
      await signUp(after, company);
      const versions = async () => (await run(secretVersions, ['--company', company.company_id], ssmEnv)).last;
      expect(await versions()).toEqual({ pin_hashes: { 1: 4, 2: 2 }, current_version: 2, oldest_kept: 1, oldest_in_use: 1 });

      const user = (await getUser(after.app.table, company.company_id, first!.userId))!;
      const pin = String(first!.registration.login_pin);
      const check = {
        companyId: company.company_id,
        userId: first!.userId,
        pinType: 'login' as const,
        pin,
        storedHash: user.login_pin_hash,
      };
      expect(await pinMatches(after.app, check)).toBe(true);
      expect(await versions()).toEqual({ pin_hashes: { 1: 3, 2: 3 }, current_version: 2, oldest_kept: 1, oldest_in_use: 1 });
      expect((await run(secretVersions, ['--company', 'nope'], ssmEnv)).code).toBe(2);
    } finally {
      await ssm.close();
    }
  });

  it('without --company counts the whole table', async () => {
    const table = await createOwnTable(inject('dynamodbEndpoint'), 'wallet-auth-versions');
    const own = testService({}, { tableName: table, serverSecret: env.SERVER_SECRET });
    await Promise.all([newCompany(own), newCompany(own)].map(async (company) => signUp(own, await company)));
    const { code, last } = await run(secretVersions, [], { ...env, TABLE_NAME: table });
    expect(code).toBe(0);
    expect(last).toEqual({
      pin_hashes: { 1: 4 },
      current_version: 1,
      oldest_kept: 1,
      oldest_in_use: 1,
    });
  });
});
