import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { OPERATION_ROUTES } from '../src/generated/api-facts.js';
import { AUTH_OPERATIONS, OPERATION_HELPERS } from '../src/operations.js';

// What the package promises beyond behaviour: a helper for every operation, no Node-only API in the
// app's part, and the app's part within its size budget (API contract 8; issue: 15 KB gzipped).

const CLIENT = resolve(import.meta.dirname, '..');
export const APP_BUDGET_GZIP_BYTES = 15 * 1024;

/** The app's part as a browser app's bundler makes it: everything but the services' verifier, minified. */
export async function appBundle(): Promise<{ text: string; modules: string[] }> {
  const result = await build({
    stdin: {
      contents:
        "export { createWalletAuthClient, WalletAuthError, memoryStorage, memoryKeyStore, indexedDbKeyStore, callOperation } from './src/index.ts';",
      resolveDir: CLIENT,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
  });
  // The modules that put code in the bundle (esbuild refuses a Node built-in for the browser outright).
  const modules = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
  return { text: result.outputFiles[0]?.text ?? '', modules };
}

describe('the client package', () => {
  it('has a helper for every operation of the API', () => {
    const helped = [...AUTH_OPERATIONS, ...Object.values(OPERATION_HELPERS).flatMap((group) => Object.values(group))];
    expect([...helped].sort()).toEqual(Object.keys(OPERATION_ROUTES).sort());
  });

  it("bundles the app's part for a browser with no Node-only module and of jose only what signs a DPoP proof, within 15 KB gzipped", async () => {
    const { text, modules } = await appBundle();
    // jose signs the proofs (contract 3.17): its JWT signing, nothing of verifying, JWKS or decrypting.
    const fromPackages = modules.filter((path) => path.includes('node_modules'));
    expect(fromPackages.filter((path) => !/node_modules\/jose\/dist\/webapi\//.test(path))).toEqual([]);
    expect(fromPackages.filter((path) => /verify|jwks|decrypt/.test(path))).toEqual([]);
    expect(fromPackages.some((path) => path.endsWith('jwt/sign.js'))).toBe(true);
    expect(modules).toContain('client/src/transport.ts');
    expect(text).not.toMatch(/\bBuffer\.|\bprocess\.|require\(/);
    expect(gzipSync(text).length).toBeLessThanOrEqual(APP_BUDGET_GZIP_BYTES);
  });

  it('declares its one runtime dependency, jose, for the services part', () => {
    const manifest = JSON.parse(readFileSync(resolve(CLIENT, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).toEqual(['jose']);
    expect(manifest.type).toBe('module');
  });
});

describe('the built package (npm run build in client/)', () => {
  it('is an ES module whose declarations resolve, with the generated types beside them', async () => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: CLIENT, stdio: 'pipe' });
    const dist = resolve(CLIENT, 'dist');
    const declarations = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.d.ts'));
    expect(declarations).toContain('index.d.ts');
    for (const file of declarations) {
      for (const [, target] of readFileSync(resolve(dist, file), 'utf8').matchAll(/from '(\.[^']+)\.js'/g)) {
        const base = resolve(dist, dirname(file), String(target));
        expect(existsSync(`${base}.d.ts`), `${file} imports ${target}`).toBe(true);
      }
    }
    const built = await import(resolve(dist, 'index.js'));
    expect(Object.keys(built)).toEqual(expect.arrayContaining(['createWalletAuthClient', 'createTokenVerifier', 'WalletAuthError']));
  });
});
