import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { isWholeRun, type SharedPackage } from './shared-package.js';
import { startTestOffline, type TestOffline } from './test-environment.js';

/** What a test file needs of the shared server: where it answers, its environment, and the file its output goes to. */
export interface SharedOffline {
  baseUrl: string;
  lambdaUrl: string;
  env: Record<string, string>;
  outputFile: string;
  /** Its bundles, which a server with settings of its own serves too (tests/e2e/offline-server.ts startOffline). */
  handlers: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Answers a SharedOffline once the run's shared serverless-offline is ready (started on the first request). */
    sharedOfflineUrl: string;
  }
}

// One serverless-offline with default settings for every HTTP test file that needs no settings
// of its own (tests/e2e/offline-server.ts useOfflineService). Started on first use, so a run
// without such a file pays nothing: the files ask for it at a loopback address, as vitest's
// workers cannot reach this process otherwise. In a whole run it serves the bundles the run's ci
// package built (tests/setup/shared-package.ts), so every function is built once a run, not once
// for each; a run of chosen files, which may package nothing, builds its own (no zips to make).
export default async function setup(project: TestProject) {
  let started: Promise<TestOffline & { outputFile: string }> | undefined;
  const start = async () => {
    const outputFile = join(tmpdir(), `wallet-offline-${randomUUID()}.log`);
    const { dynamodbEndpoint, sharedPackageUrl } = project.getProvidedContext();
    let handlers: string | undefined;
    if (isWholeRun()) {
      const ci = await fetch(`${sharedPackageUrl}/ci`);
      if (!ci.ok) throw new Error(`the ci package, whose bundles the shared server serves, failed: ${await ci.text()}`);
      ({ handlers } = (await ci.json()) as SharedPackage);
    }
    return { ...(await startTestOffline(dynamodbEndpoint, {}, { file: true }, outputFile, handlers)), outputFile };
  };
  const broker = createServer((_, response) => {
    started ??= start();
    started.then(
      ({ server, env, outputFile }) => {
        const shared: SharedOffline = { baseUrl: server.baseUrl, lambdaUrl: server.lambdaUrl, env, outputFile, handlers: server.handlers };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(shared));
      },
      (error: Error) => response.writeHead(500).end(error.stack ?? String(error)),
    );
  });
  await new Promise<void>((listening) => broker.listen(0, '127.0.0.1', listening));
  const { port } = broker.address() as { port: number };
  project.provide('sharedOfflineUrl', `http://127.0.0.1:${port}`);
  return async () => {
    broker.close();
    const shared = await started?.catch(() => undefined);
    await shared?.server.stop();
  };
}
