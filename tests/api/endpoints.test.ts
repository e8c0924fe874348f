// One name per endpoint: the route table's key is the operationId, the function's key in
// serverless.yml and serverless/permissions.cjs, and in kebab case its function file and endpoint
// module. A newcomer never has to translate one spelling into another.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { endpoints } from '../../lib/api/endpoints.js';

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

interface ServerlessFunction {
  handler: string;
  events?: { httpApi: { method: string; path: string } | string }[];
}
const serverless = parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as {
  functions: Record<string, ServerlessFunction>[];
};
const functions = Object.assign({}, ...serverless.functions.filter((entry) => typeof entry === 'object')) as Record<
  string,
  ServerlessFunction
>;
const permissions = createRequire(import.meta.url)('../../serverless/permissions.cjs') as Record<string, unknown>;

describe('the route table (lib/api/endpoints.ts)', () => {
  it.each(Object.entries(endpoints))('%s: one name for operationId, function, permissions and files', (name, endpoint) => {
    expect(endpoint.operationId).toBe(name);
    expect(existsSync(`functions/${kebab(name)}.ts`), `functions/${kebab(name)}.ts`).toBe(true);
    expect(existsSync(`lib/api/${kebab(name)}-endpoint.ts`), `lib/api/${kebab(name)}-endpoint.ts`).toBe(true);
    expect(functions[name]?.handler).toBe(`functions/${kebab(name)}.handler`);
    expect(functions[name]?.events).toEqual([{ httpApi: { method: endpoint.method, path: endpoint.path } }]);
    expect(permissions[name]).toBeDefined();
  });

  it('lists each operation at a glance, as its endpoint module declares it', () => {
    const source = readFileSync('lib/api/endpoints.ts', 'utf8');
    const listed = [...source.matchAll(/^\/\/ {3}(\w+)\s+(GET|POST)\s+(\S+)/gm)].map(
      ([, name, method, path]) => `${name} ${method} ${path}`,
    );
    const declared = Object.entries(endpoints).map(([name, { method, path }]) => `${name} ${method} ${path}`);
    expect(listed).toEqual(declared);
  });
});
