import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startFakeSsm } from '../../tests/harness/ssm-fake.js';
import { buildFloor, esbuildOptions, type Timing, timeImport } from './cold-init.js';
import { median, round } from './stats.js';

// What reading the server secret from SSM Parameter Store costs a cold start, in two parts:
// importing the SSM client with the bundle (a floor of the DynamoDB clients with and without it,
// imported at the same time in two fresh processes, as the cold init pairs are), and the first read
// (client set-up and one GetParameter, in a fresh process, against a loopback SSM, so without AWS's
// network time) beside reading the local file instead. Every later use in the container is a
// lookup in memory.

export interface SecretCost {
  /** Pairs of imports, and first reads of each source (each read a process with tsx: the costly part). */
  importRuns: number;
  readRuns: number;
  /** Medians, ms: importing the DynamoDB clients, and the same with the SSM client. */
  importWithoutSsmMs: number;
  importWithSsmMs: number;
  /** Medians of the pairs' differences, wall and CPU time, ms. */
  importSsmAddsMs: number;
  importSsmAddsCpuMs: number;
  /** Medians, ms: the first key derived from a secret read from SSM, and from a local file. */
  firstReadSsmMs: number;
  firstReadSsmCpuMs: number;
  firstReadFileMs: number;
  /** Median, ms: a later key from the same container (kept in memory). */
  laterReadMs: number;
}

const PARAMETER = '/wallet-auth/bench/server-secret';

/** One fresh process: the first key from a source, then a later one (asynchronous: the fake SSM answers from this process). */
async function firstRead(root: string, source: string): Promise<Timing & { laterMs: number }> {
  const lib = (file: string) => JSON.stringify(pathToFileURL(join(root, 'lib', file)).href);
  const script =
    `const { ServerKeys, fileSecret } = await import(${lib('secrets/server-keys.ts')});` +
    `const { ssmSecret } = await import(${lib('secrets/ssm-secret.ts')});` +
    `const { readConfig } = await import(${lib('config.ts')});` +
    `const keys = new ServerKeys(${source});` +
    'const cpu = process.cpuUsage(); const start = performance.now();' +
    "await keys.current('otp'); const ms = performance.now() - start; const used = process.cpuUsage(cpu);" +
    "const later = performance.now(); await keys.current('cursor'); const laterMs = performance.now() - later;" +
    'process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, laterMs }));';
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    env: { PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return JSON.parse(stdout) as Timing & { laterMs: number };
}

export async function measureSecretCost(
  root: string,
  { importRuns, readRuns }: { importRuns: number; readRuns: number },
): Promise<SecretCost> {
  const workDir = mkdtempSync(join(tmpdir(), 'wallet-bench-secret-'));
  const ssm = await startFakeSsm();
  try {
    const options = esbuildOptions(root);
    const [without, withSsm] = [join(workDir, 'without.mjs'), join(workDir, 'with.mjs')];
    await buildFloor(root, options, ['client-dynamodb', 'lib-dynamodb'], without);
    await buildFloor(root, options, ['client-dynamodb', 'lib-dynamodb', 'client-ssm'], withSsm);
    const importPair = () => Promise.all([timeImport(without, false), timeImport(withSsm, false)]);
    await importPair();
    const imports = [];
    for (let run = 0; run < importRuns; run++) imports.push(await importPair());

    ssm.put(PARAMETER, randomBytes(32).toString('base64'));
    const secretFile = join(workDir, 'server-secret');
    writeFileSync(secretFile, randomBytes(32).toString('hex'));
    const environment = { STAGE: 'bench', SERVER_SECRET_PARAMETER: PARAMETER, SSM_ENDPOINT: ssm.endpoint };
    const fromSsm = `ssmSecret(readConfig(${JSON.stringify(environment)}))`;
    const fromFile = `fileSecret(${JSON.stringify(secretFile)})`;

    const timings = { ssm: [] as Timing[], file: [] as number[], later: [] as number[] };
    for (let run = 0; run < readRuns; run++) {
      const read = await firstRead(root, fromSsm);
      timings.ssm.push(read);
      timings.later.push(read.laterMs);
      timings.file.push((await firstRead(root, fromFile)).ms);
    }
    return {
      importRuns,
      readRuns,
      importWithoutSsmMs: round(median(imports.map(([plain]) => plain.ms))),
      importWithSsmMs: round(median(imports.map(([, ssm]) => ssm.ms))),
      importSsmAddsMs: round(median(imports.map(([plain, ssm]) => ssm.ms - plain.ms))),
      importSsmAddsCpuMs: round(median(imports.map(([plain, ssm]) => ssm.cpuMs - plain.cpuMs))),
      firstReadSsmMs: round(median(timings.ssm.map((timing) => timing.ms))),
      firstReadSsmCpuMs: round(median(timings.ssm.map((timing) => timing.cpuMs))),
      firstReadFileMs: round(median(timings.file)),
      laterReadMs: round(median(timings.later), 3),
    };
  } finally {
    await ssm.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}
