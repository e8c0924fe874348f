import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import { freePort } from '../harness/dynamodb-local.js';

// An independent check of docs/openapi.json: Stoplight Prism as a proxy in front of the
// service validates each request against the document before forwarding it, and each answer
// after. It forwards even what it finds invalid (no --errors), so the test still sees the
// service's own answer, and reports what it found in the sl-violations header.

const root = resolve(import.meta.dirname, '../..');
const PRISM = resolve(root, 'node_modules/@stoplight/prism-cli/dist/index.js');

export interface DocumentProxy {
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** One finding of Prism: where (request or response, then the part) and what. */
export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export async function startDocumentProxy(upstream: string): Promise<DocumentProxy> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [PRISM, 'proxy', resolve(root, 'docs/openapi.json'), upstream, '--host', '127.0.0.1', '--port', String(port)],
    { cwd: root, detached: true, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    process.kill(-child.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
  };
  // Listening once it says so: the caller's hook timeout bounds the wait, not one of this file's.
  while (!output.includes('Prism is listening')) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prism proxy did not start: ${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { baseUrl: `http://127.0.0.1:${port}`, output: () => output, stop };
}

/** What Prism found wrong with one exchange; none when it found nothing. */
export function violationsOf(response: Response): Violation[] {
  const header = response.headers.get('sl-violations');
  if (!header) return [];
  // Prism cuts a long list and says so in front of it.
  expect(header, 'more violations than Prism reports').not.toMatch(/^Too many violations/);
  return JSON.parse(header) as Violation[];
}

/** Asserts Prism found the exchange as the document describes it: both the request and the answer. */
export function expectNoViolations(response: Response, what: string): void {
  expect(violationsOf(response), `${what}: the document and the service disagree`).toEqual([]);
}
