// The console's function (functions/console.ts) as its bundle is built for a deploy (serverless.yml's
// esbuild plugins, the page built from console/src by serverless/console-page.cjs): what each answer
// holds and which headers guard it; what the page's sources may not do; how large its script is.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const plugins = require('../../serverless/esbuild-plugins.cjs') as esbuild.Plugin[];
const { buildConsolePage } = require('../../serverless/console-page.cjs') as {
  buildConsolePage: (api: typeof esbuild) => Promise<{ script: string; style: string }>;
};

/** The CSP of contract 3.14 and the task: nothing but this origin's own files, nothing inline, never framed. */
const STRICT_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** The task's ceiling for the page's JavaScript, gzipped. */
const MAX_GZIPPED_SCRIPT_BYTES = 100 * 1024;

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
let handler: Handler;
let folder: string;

const get = (path: string, headers: Record<string, string> = {}) =>
  handler({ rawPath: path, headers, requestContext: { http: { method: 'GET', path } } } as unknown as APIGatewayProxyEventV2);

beforeAll(async () => {
  // As serverless.yml's custom.esbuild builds a function: one ESM file, the same plugins.
  folder = mkdtempSync(join(tmpdir(), 'wallet-console-'));
  await esbuild.build({
    entryPoints: [join(root, 'functions/console.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outfile: join(folder, 'console.mjs'),
    plugins,
    logLevel: 'silent',
  });
  ({ handler } = (await import(pathToFileURL(join(folder, 'console.mjs')).href)) as { handler: Handler });
}, 60_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('GET /console', () => {
  it('answers the page with a strict Content-Security-Policy, nosniff, no referrer and no caching', async () => {
    const answer = await get('/console');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    expect(String(answer.headers?.['content-security-policy'])).toMatch(new RegExp(`^${STRICT_POLICY}(;|$)`));
    expect(String(answer.headers?.['content-security-policy'])).not.toMatch(/unsafe|\*|https?:|data:/);
  });

  it('holds no inline script, inline style or handler attribute, and loads only its own two files', async () => {
    const html = String((await get('/console')).body);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map(([, attributes, body]) => [attributes?.trim(), body?.trim()])).toEqual([['src="/console/console.js" defer', '']]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url)).toEqual(['/console/console.css', '/console/console.js']);
  });

  it('serves the script and style built from console/src, each with an ETag a revalidation answers 304 to', async () => {
    const page = await buildConsolePage(esbuild);
    for (const [path, type, body] of [
      ['/console/console.js', 'text/javascript; charset=utf-8', page.script],
      ['/console/console.css', 'text/css; charset=utf-8', page.style],
    ] as const) {
      const answer = await get(path);
      expect(answer.statusCode, path).toBe(200);
      expect(answer.headers, path).toMatchObject({
        'content-type': type,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      expect(answer.body, path).toBe(body);
      const etag = String(answer.headers?.etag);
      expect((await get(path, { 'if-none-match': etag })).statusCode, path).toBe(304);
      expect((await get(path, { 'if-none-match': '"other"' })).statusCode, path).toBe(200);
    }
  });

  it('answers any other file 404 in the envelope, with the same guard headers', async () => {
    for (const path of ['/console/secret.txt', '/console/..%2Fserverless.yml', '/console/console.js/x']) {
      const answer = await get(path);
      expect(answer.statusCode, path).toBe(404);
      expect(JSON.parse(String(answer.body))).toMatchObject({ success: 0, error: [6] });
      expect(String(answer.headers?.['content-security-policy'])).toMatch(new RegExp(`^${STRICT_POLICY}`));
    }
  });
});

describe('the page’s script (console/src)', () => {
  const sources = readdirSync(join(root, 'console/src'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ name, text: readFileSync(join(root, 'console/src', name), 'utf8') }));

  it(`is at most ${MAX_GZIPPED_SCRIPT_BYTES / 1024} KB of JavaScript gzipped`, async () => {
    const { script, style } = await buildConsolePage(esbuild);
    const gzipped = gzipSync(script).length;
    console.log(
      `console.js: ${script.length} bytes, ${gzipped} gzipped; console.css: ${style.length} bytes, ${gzipSync(style).length} gzipped`,
    );
    expect(gzipped).toBeLessThanOrEqual(MAX_GZIPPED_SCRIPT_BYTES);
    // The client library's token verifier (jose) is for services: no page needs it.
    expect(script).not.toMatch(/JWSSignatureVerificationFailed|createRemoteJWKSet/);
  });

  it('imports only its own modules and the client library: nothing of lib/, nothing from another origin', () => {
    for (const { name, text } of sources) {
      for (const match of text.matchAll(/\bfrom\s+'([^']+)'|\bimport\s+'([^']+)'/g)) {
        const specifier = match[1] ?? match[2] ?? '';
        const target = relative(root, resolve(root, 'console/src', specifier));
        expect(target.startsWith('console/src/') || target.startsWith('client/src/'), `${name} imports ${specifier}`).toBe(true);
      }
      expect(text, name).not.toMatch(/\bimport\(|https?:\/\//);
    }
  });

  it('writes no markup as text: no innerHTML, outerHTML, insertAdjacentHTML, document.write, eval or inline style', async () => {
    const sinks =
      /\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|\.style\.|['"]style['"]\s*:|setAttribute\(\s*['"](style|on)/;
    for (const { name, text } of sources) expect(text, name).not.toMatch(sinks);
    expect((await buildConsolePage(esbuild)).script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });
});
