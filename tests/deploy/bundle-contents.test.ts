// What each function's bundle holds and evaluates at import, as serverless-esbuild builds it
// (serverless.yml's options and plugins): what keeps a cold start's init lean (docs/performance.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import metadataObject from 'libphonenumber-js/metadata.max.json';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { esbuildOptions } from '../../scripts/bench/cold-init.js';

const root = resolve(import.meta.dirname, '../..');
const plugins = createRequire(import.meta.url)('../../serverless/esbuild-plugins.cjs') as Plugin[];
const PHONE_PLAN = 'lib/users/phone-plan.ts';

interface Bundle {
  metafile: Metafile;
  text: string;
}
const bundles: Record<string, Bundle> = {};

/** The packaged functions of serverless.yml, by name, with their handler module. */
function functionEntries(): Record<string, string> {
  const { functions } = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as { functions: unknown[] };
  const entries: Record<string, string> = {};
  for (const entry of functions.filter((entry) => typeof entry === 'object') as Record<string, { handler: string }>[]) {
    for (const [name, { handler }] of Object.entries(entry)) entries[name] = `${handler.slice(0, handler.lastIndexOf('.'))}.ts`;
  }
  return entries;
}

const holds = (bundle: Bundle, path: string) => Object.keys(bundle.metafile.inputs).some((input) => input.includes(path));

beforeAll(async () => {
  const options = { ...esbuildOptions(root), plugins, write: false, metafile: true, logLevel: 'silent' as const, outdir: '/unused' };
  for (const [name, entry] of Object.entries(functionEntries())) {
    const result = await build({ ...options, entryPoints: [join(root, entry)] });
    bundles[name] = { metafile: result.metafile!, text: result.outputFiles![0]!.text };
  }
}, 120_000);

describe('the function bundles', () => {
  it('hold negotiator in login_phone only: the SMS template choice is on the send path alone', () => {
    const withNegotiator = Object.keys(bundles).filter((name) => holds(bundles[name]!, 'node_modules/negotiator/'));
    expect(withNegotiator).toEqual(['loginPhone']);
  });

  it('reach the numbering plan only through a dynamic import, so it is evaluated on the first phone checked, not at import', () => {
    const phoneFunctions = Object.keys(bundles).filter((name) => holds(bundles[name]!, 'node_modules/libphonenumber-js/'));
    // The functions that take a phone, and change_pin and reset_pin, which share the registration's PIN rule module.
    expect(phoneFunctions.sort()).toEqual(['changePin', 'loginPhone', 'resetPin', 'userRegister', 'verifyOtp']);
    for (const name of phoneFunctions) {
      const { inputs } = bundles[name]!.metafile;
      const toPlan = Object.entries(inputs).flatMap(([from, input]) =>
        input.imports.filter((edge) => edge.path === PHONE_PLAN).map((edge) => ({ from, kind: edge.kind })),
      );
      expect(toPlan.length, name).toBeGreaterThan(0);
      for (const edge of toPlan) expect(edge, name).toMatchObject({ kind: 'dynamic-import' });
      // libphonenumber itself is imported by the plan alone (and by its own modules).
      const intoLibrary = Object.entries(inputs).filter(
        ([from, input]) =>
          !from.includes('node_modules/libphonenumber-js/') &&
          input.imports.some((edge) => edge.path.includes('node_modules/libphonenumber-js/')),
      );
      expect(
        intoLibrary.map(([from]) => from),
        name,
      ).toEqual([PHONE_PLAN]);
    }
  });

  it('carry the numbering plan as JSON.parse of a string, the same object the package ships', () => {
    const text = bundles.verifyOtp!.text;
    const start = text.indexOf('JSON.parse(\'{"version":');
    expect(start).toBeGreaterThan(0);
    // The bundle's own expression, evaluated as the function would at its first phone check.
    const expression = text.slice(start, text.indexOf("')", start) + 2);
    expect(new Function(`return ${expression}`)()).toEqual(metadataObject);
  });
});
