// One name per endpoint: the route table's key is the operationId, the function's key in
// serverless.yml and serverless/permissions.cjs, and in kebab case its function file and endpoint
// module. A newcomer never has to translate one spelling into another.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { endpoints, pages } from '../../lib/api/endpoints.js';

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const require = createRequire(import.meta.url);

interface ServerlessFunction {
  role?: unknown;
  handler: string;
  memorySize: number;
  events: ({ httpApi: { method: string; path: string } | string } | Record<string, unknown>)[];
}
/** The functions the deploy builds from the route table (serverless/functions.cjs), for a deployed stage and a local one. */
const { httpFunctions } = require('../../serverless/functions.cjs') as {
  httpFunctions: (stage: string, parameters: Record<string, unknown>) => Record<string, ServerlessFunction>;
};
const deployed = httpFunctions('prod', { REGISTER_RESERVED_CONCURRENCY: 20 });
const local = httpFunctions('local', { REGISTER_RESERVED_CONCURRENCY: 20 });
const permissions = require('../../serverless/permissions.cjs') as Record<string, unknown>;

describe('the route table (lib/api/endpoints.ts)', () => {
  it.each(Object.entries(endpoints))('%s: one name for operationId, function, permissions and files', (name, endpoint) => {
    expect(endpoint.operationId).toBe(name);
    expect(existsSync(`functions/${kebab(name)}.ts`), `functions/${kebab(name)}.ts`).toBe(true);
    expect(existsSync(`lib/api/${kebab(name)}-endpoint.ts`), `lib/api/${kebab(name)}-endpoint.ts`).toBe(true);
    expect(deployed[name]).toMatchObject({
      role: { 'Fn::Sub': `\${${name[0]!.toUpperCase()}${name.slice(1)}Role.Arn}` },
      handler: `functions/${kebab(name)}.handler`,
      memorySize: ('memorySize' in endpoint ? endpoint.memorySize : undefined) ?? 512,
      events: [{ httpApi: { method: endpoint.method, path: endpoint.path } }],
    });
    expect(permissions[name]).toBeDefined();
  });

  it('deploys each page beside the operations, and the local ones only on the local stages', () => {
    for (const [name, page] of Object.entries(pages)) {
      expect(existsSync(`functions/${kebab(name)}.ts`), name).toBe(true);
      expect(local[name]?.handler, name).toBe(`functions/${kebab(name)}.handler`);
      const routes =
        page.routes === '*'
          ? [{ httpApi: '*' }]
          : page.routes.map((route) => ({ httpApi: { method: route.split(' ')[0], path: route.split(' ')[1] } }));
      expect(local[name]?.events, name).toEqual(routes);
      if ('localOnly' in page) expect(deployed[name], name).toBeUndefined();
      else expect(permissions[name], name).toBeDefined();
    }
    expect(Object.keys(deployed).sort()).toEqual(
      [...Object.keys(endpoints), ...Object.entries(pages).flatMap(([name, page]) => ('localOnly' in page ? [] : [name]))].sort(),
    );
  });

  it('gives registration its own share of the concurrency, from the deployer’s parameter', () => {
    expect(httpFunctions('prod', { REGISTER_RESERVED_CONCURRENCY: 35 }).userRegister).toMatchObject({ reservedConcurrency: 35 });
  });
});
