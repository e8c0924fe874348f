import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const root = resolve(import.meta.dirname, '../..');

/** A packaged stage as the deploy tests read it: the --package folder, and for ci each bundle's esbuild metafile. */
export interface SharedPackage {
  /** The template (cloudformation-template-update-stack.json), serverless-state.json and a zip per function. */
  folder: string;
  /** <handler file>.json for each function (serverless/esbuild-plugins.cjs); ci only. */
  metafiles?: string;
  /** The bundles themselves, relative to the service, as a local server serves them (OfflineOptions.prebuilt); ci only. */
  handlers?: string;
  /** Date.now() when its packaging began. */
  startedAt: number;
}
export type SharedStage = 'ci' | 'prod';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Answers a SharedPackage for /ci or /prod once that stage is packaged (on the first request). */
    sharedPackageUrl: string;
  }
}

/** Set while packaging ci: it must reach no template and no function. */
export const SECRET_IN_ENVIRONMENT = `canary-${'7f'.repeat(24)}`;
/** A signing key set in the shell that packages (its private part a canary too): it must not reach the template either. */
export const SIGNING_KEY_CANARY = `canary${'3e'.repeat(18)}`;
const SIGNING_KEYS_IN_ENVIRONMENT = JSON.stringify({
  keys: [{ kid: 'canary', signs_from: 0, created_at: 0, jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: SIGNING_KEY_CANARY } }],
});
/** The payment service's role while packaging prod: redeemAuthorization's one invoker. */
export const PAYMENT_SERVICE_ROLE = 'arn:aws:iam::123456789012:role/payment-service';
/** What points the functions at this machine's stand-ins (serverless/local-endpoints.cjs): never inherited by a package. */
export const LOCAL_SETTINGS = createRequire(import.meta.url)('../../serverless/local-endpoints.cjs').LOCAL_SETTINGS as string[];

/**
 * `serverless package --stage <stage>` into folder, offline, with no AWS credentials and no local
 * settings but those given; its own esbuild work folder, removed after unless `keptBuild` names
 * one to keep (its bundles in `<keptBuild>/.build`). Rejects with the output of a refusal.
 */
export async function packageStage(folder: string, stage: string, env: Record<string, string> = {}, keptBuild?: string): Promise<void> {
  const inherited = Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !LOCAL_SETTINGS.includes(name));
  const home = mkdtempSync(join(tmpdir(), 'wallet-home-'));
  const workFolder = keptBuild ?? `.esbuild-package-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const keep = keptBuild ? { ESBUILD_KEEP_OUTPUT: 'true' } : {};
  try {
    await promisify(execFile)(
      process.execPath,
      ['node_modules/serverless/bin/serverless.js', 'package', '--stage', stage, '--package', folder],
      {
        cwd: root,
        env: { ...Object.fromEntries(inherited), HOME: home, ESBUILD_WORK_FOLDER: workFolder, ...keep, ...env },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (error) {
    if (keptBuild) rmSync(join(root, keptBuild), { recursive: true, force: true });
    throw error;
  } finally {
    if (!keptBuild) rmSync(join(root, workFolder), { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** A run of the whole suite (`vitest run`), not of chosen files (`vitest run tests/x`). */
export const isWholeRun = () => !process.argv.slice(2).some((arg) => !arg.startsWith('-') && arg !== 'run');

// Packaging builds every function (about 20 s on 2 cores, serverless/one-build.cjs): once per
// run, for every deploy test and, in a whole run, every local server. ci is built at the run's
// start, and its bundles are kept: the shared serverless-offline serves them
// (tests/setup/shared-offline.ts), as a bundle reads its stage's settings at run time. prod
// (cfn-lint's template, the payment service's grant) is packaged from ci's zips without building again. Broker as tests/setup/shared-offline.ts.
export default async function setup(project: TestProject) {
  const scratch = mkdtempSync(join(tmpdir(), 'wallet-shared-package-'));
  const ciBuild = `.esbuild-package-ci-${process.pid}`;
  const packaged = new Map<SharedStage, Promise<SharedPackage>>();
  const packageCi = async (): Promise<SharedPackage> => {
    const startedAt = Date.now();
    const folder = join(scratch, 'ci');
    const metafiles = join(scratch, 'metafiles');
    await packageStage(
      folder,
      'ci',
      { SERVER_SECRET: SECRET_IN_ENVIRONMENT, SIGNING_KEYS: SIGNING_KEYS_IN_ENVIRONMENT, ESBUILD_METAFILE_DIR: metafiles },
      ciBuild,
    );
    return { folder, metafiles, handlers: `${ciBuild}/.build`, startedAt };
  };
  const packageProd = async (): Promise<SharedPackage> => {
    const ci = await stage('ci');
    const startedAt = Date.now();
    const folder = join(scratch, 'prod');
    mkdirSync(folder);
    for (const zip of readdirSync(ci.folder).filter((name) => name.endsWith('.zip'))) copyFileSync(join(ci.folder, zip), join(folder, zip));
    await packageStage(folder, 'prod', { ESBUILD_SKIP_BUILD: 'true', PAYMENT_SERVICE_ROLE_ARN: PAYMENT_SERVICE_ROLE });
    return { folder, startedAt };
  };
  const stage = (name: SharedStage): Promise<SharedPackage> => {
    if (!packaged.has(name)) packaged.set(name, name === 'ci' ? packageCi() : packageProd());
    return packaged.get(name)!;
  };

  const broker = createServer((request, response) => {
    const name = request.url?.slice(1);
    if (name !== 'ci' && name !== 'prod') return void response.writeHead(404).end(`no shared package of ${name}`);
    stage(name).then(
      (shared) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(shared)),
      (error: Error & { stdout?: string; stderr?: string }) =>
        response.writeHead(500).end(`${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`),
    );
  });
  await new Promise<void>((listening) => broker.listen(0, '127.0.0.1', listening));
  const { port } = broker.address() as { port: number };
  project.provide('sharedPackageUrl', `http://127.0.0.1:${port}`);
  // Started now, beside the first test files (which leave a core idle while they wait on servers),
  // rather than by the first deploy test, which would wait the whole packaging. A failure is told
  // to whoever asks for the package.
  // Only for a whole run: a run of chosen files (`vitest run tests/x`) packages if one of them asks.
  if (isWholeRun()) stage('prod').catch(() => undefined);
  return async () => {
    broker.close();
    await Promise.allSettled(packaged.values());
    rmSync(scratch, { recursive: true, force: true });
    rmSync(join(root, ciBuild), { recursive: true, force: true });
  };
}
