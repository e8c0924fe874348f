import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { getCompany } from '../../lib/store/company-store.js';
import { getUser } from '../../lib/store/user-store.js';
import { authenticate } from '../../lib/tokens/access-tokens.js';
import { sampleRegistration, testEnvironment, testService } from '../helpers.js';

// The operator commands read their configuration from their environment, as on a deployed stage.
const env = { ...process.env, ...testEnvironment() };
const service = testService({}, { serverSecret: env.SERVER_SECRET });

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const tsx = resolve(root, 'node_modules/.bin/tsx');

describe('npm run company:create', () => {
  it('creates an active company and prints {"company_id": "<32 hex>"} as its last line', async () => {
    const { stdout } = await run(tsx, ['scripts/create-company.ts', '--name', 'Acme'], { cwd: root, env });
    const lastLine = stdout.trim().split('\n').at(-1)!;
    const { company_id: companyId } = JSON.parse(lastLine);
    expect(companyId).toMatch(/^[0-9a-f]{32}$/);
    expect(await getCompany(service.app.table, companyId)).toMatchObject({ name: 'Acme', status: 'active' });
  });

  it('refuses to run without a name', async () => {
    await expect(run(tsx, ['scripts/create-company.ts'], { cwd: root, env })).rejects.toMatchObject({ code: 2 });
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
    expect(await authenticate(service.app, companyId, `Token ${token}`)).toEqual({ companyId, userId, userType: 1 });
    expect((await getUser(service.app.table, companyId, userId))?.cretaed_by).toBe('operator');
  });
});
