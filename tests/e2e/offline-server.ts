import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { newCompany } from '../helpers.js';
import { freePort } from '../../scripts/local-dynamodb.js';

const root = resolve(import.meta.dirname, '../..');

export interface OfflineServer {
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * The real service as npm start runs it: serverless-offline building the handlers with
 * esbuild, on free ports, against the tests' DynamoDB Local and table (stage "test").
 */
export async function startOffline(extraEnv: Record<string, string> = {}): Promise<OfflineServer> {
  const [port, lambdaPort] = [await freePort(), await freePort()];
  const workFolder = `.esbuild-test-${port}`;
  const child = spawn(process.execPath, ['node_modules/serverless/bin/serverless.js', 'offline', 'start', '--stage', 'test'], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      LAMBDA_PORT: String(lambdaPort),
      ESBUILD_WORK_FOLDER: workFolder,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited: ${output}`);
    if (output.includes('Server ready')) break;
    if (Date.now() > deadline) throw new Error(`serverless offline did not start: ${output}`);
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    baseUrl,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        process.kill(-child.pid!, 'SIGTERM');
        await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      }
      rmSync(resolve(root, workFolder), { recursive: true, force: true });
    },
  };
}

/** For a test file: the service started before its tests and stopped after, with a company of its own. */
export function useOfflineService(): { server: OfflineServer; company: Company } {
  const fixture = {} as { server: OfflineServer; company: Company };
  beforeAll(async () => {
    [fixture.server, fixture.company] = await Promise.all([startOffline(), newCompany()]);
  }, 180_000);
  afterAll(() => fixture.server?.stop());
  return fixture;
}
