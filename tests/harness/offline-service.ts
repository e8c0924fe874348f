import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from './dynamodb-local.js';

// The real service as npm start runs it: serverless-offline building the handlers with esbuild,
// on free loopback ports. Used by the HTTP tests (tests/e2e) and the load run (scripts/load.ts).

const root = resolve(import.meta.dirname, '../..');

export interface OfflineService {
  baseUrl: string;
  /** serverless-offline's Lambda API (LAMBDA_PORT): POST /2015-03-31/functions/<name>/invocations. */
  lambdaUrl: string;
  /** Where its bundles are, relative to the service: another server can serve them (OfflineOptions.prebuilt). */
  handlers: string;
  output: () => string;
  stop: () => Promise<void>;
}

interface OfflineOptions {
  /** The serverless stage; it names the table (wallet-auth-<stage>). */
  stage: string;
  /** Added to this process's environment for the service. */
  env?: Record<string, string>;
  /** More serverless-offline options, such as --useInProcess. */
  args?: string[];
  /** Called with the service's output as it comes (for a reader in another process). */
  onOutput?: (text: string) => void;
  /** Another server's `handlers`: serve its bundles, build none (serverless/prebuilt-handlers.cjs). */
  prebuilt?: string;
}

export async function startOfflineService({ stage, env = {}, args = [], onOutput, prebuilt }: OfflineOptions): Promise<OfflineService> {
  // The caller may have chosen the HTTP port (the tokens' issuer names it).
  const [port, lambdaPort] = [env.PORT ? Number(env.PORT) : await freePort(), await freePort()];
  const workFolder = `.esbuild-${stage}-${port}`;
  const child = spawn(process.execPath, ['node_modules/serverless/bin/serverless.js', 'offline', 'start', '--stage', stage, ...args], {
    cwd: root,
    // Its own process group, so stop() ends serverless-offline and everything it started.
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      LAMBDA_PORT: String(lambdaPort),
      ESBUILD_WORK_FOLDER: workFolder,
      // A file that never exists: serves the code it started with, not a rebuild per edit (serverless.yml, esbuild watch).
      ESBUILD_WATCH_PATTERN: `${workFolder}/.no-watch`,
      ...(prebuilt ? { OFFLINE_PREBUILT_HANDLERS: prebuilt } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (text: string) => {
    output += text;
    onOutput?.(text);
  };
  // Decoded as a stream, so a character split between chunks (the λ of its log lines) stays whole.
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      process.kill(-child.pid!, 'SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
    rmSync(resolve(root, workFolder), { recursive: true, force: true });
  };

  // Ready once it says so, however long building every function takes (about 2 minutes at a load
  // of 8 on 2 cores): the caller's own timeout (a test hook's) bounds the wait, not one of this file's.
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`serverless offline exited: ${output}`);
    }
    if (output.includes('Server ready')) break;
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    lambdaUrl: `http://127.0.0.1:${lambdaPort}`,
    // serverless-esbuild's build folder in the work folder (.build), when it built there: without
    // prebuilt bundles, or with some missing (serverless/prebuilt-handlers.cjs copies the others there).
    handlers: !prebuilt || existsSync(resolve(root, workFolder, '.build/functions')) ? `${workFolder}/.build` : prebuilt,
    output: () => output,
    stop,
  };
}
