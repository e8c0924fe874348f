import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import { readZip, type ZipEntry } from './zip.js';

// Packages the service exactly as a deploy would (`serverless package`, offline, without AWS
// credentials) and reads each function's zip: its sizes and its bundled handler; and, from the
// bundle's esbuild metafile (serverless/esbuild-plugins.cjs), what the bundle holds.

export interface PackagedFunction {
  name: string;
  /** "POST /wallet/v3/auth/user_register", or "*" for the catch-all. */
  route: string;
  /** e.g. functions/user-register.handler */
  handler: string;
  memoryMb: number;
  zipBytes: number;
  unzippedBytes: number;
  entries: ZipEntry[];
  /** The zip entry holding the handler's module. */
  handlerEntry: string;
  /** Bytes of the minified bundle by what they come from (BUNDLE_PARTS). */
  contents: BundleContents;
}

/** What a bundle's bytes come from: our own code, each library we chose, and the AWS SDK with its dependencies. */
export const BUNDLE_PARTS = ['own code', 'zod', 'Powertools', 'jose', 'libphonenumber', 'middy', 'negotiator', 'SDK'] as const;
export type BundleContents = Record<(typeof BUNDLE_PARTS)[number], number>;

const LIBRARIES: [RegExp, (typeof BUNDLE_PARTS)[number]][] = [
  [/^(lib|functions)\//, 'own code'],
  [/node_modules\/zod\//, 'zod'],
  [/node_modules\/@aws-lambda-powertools\//, 'Powertools'],
  [/node_modules\/jose\//, 'jose'],
  [/node_modules\/libphonenumber-js\//, 'libphonenumber'],
  [/node_modules\/@middy\//, 'middy'],
  [/node_modules\/negotiator\//, 'negotiator'],
];

function contentsOf(metafile: Metafile): BundleContents {
  const contents = Object.fromEntries(BUNDLE_PARTS.map((part) => [part, 0])) as BundleContents;
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const part = LIBRARIES.find(([pattern]) => pattern.test(input))?.[1] ?? 'SDK';
      contents[part] += bytesInOutput;
    }
  }
  return contents;
}

interface StateFunction {
  handler: string;
  memory?: number;
  memorySize?: number;
  events?: { httpApi?: string | { method: string; path: string } }[];
}

function routeOf(fn: StateFunction): string {
  const event = fn.events?.find((candidate) => candidate.httpApi)?.httpApi;
  if (!event) return '-';
  return typeof event === 'string' ? event : `${event.method.toUpperCase()} ${event.path}`;
}

export async function packageFunctions(root: string, stage = 'bench'): Promise<PackagedFunction[]> {
  const outDir = mkdtempSync(join(tmpdir(), 'wallet-bench-package-'));
  const home = mkdtempSync(join(tmpdir(), 'wallet-bench-home-'));
  const workFolder = '.esbuild-bench';
  // Apart from the package folder, which packaging empties first.
  const metafiles = mkdtempSync(join(tmpdir(), 'wallet-bench-metafiles-'));
  // No AWS_* variables: packaging must not need (or use) credentials.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  try {
    await promisify(execFile)(
      process.execPath,
      ['node_modules/serverless/bin/serverless.js', 'package', '--stage', stage, '--package', outDir],
      {
        cwd: root,
        env: { ...env, HOME: home, ESBUILD_WORK_FOLDER: workFolder, ESBUILD_METAFILE_DIR: metafiles },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const state = JSON.parse(readFileSync(join(outDir, 'serverless-state.json'), 'utf8'));
    const provider = state.service.provider as { memorySize?: number };
    const functions = state.service.functions as Record<string, StateFunction>;
    return Object.entries(functions).map(([name, fn]) => {
      const zip = readFileSync(join(outDir, `${name}.zip`));
      const entries = readZip(zip);
      const modulePath = fn.handler.slice(0, fn.handler.lastIndexOf('.'));
      const handlerEntry = entries.find(
        (entry) => /\.(mjs|cjs|js)$/.test(entry.name) && entry.name.replace(/\.(mjs|cjs|js)$/, '') === modulePath,
      );
      if (!handlerEntry) throw new Error(`${name}: no module for ${fn.handler} in its zip`);
      const metafile = JSON.parse(readFileSync(join(metafiles, `${basename(modulePath)}.json`), 'utf8')) as Metafile;
      return {
        name,
        route: routeOf(fn),
        handler: fn.handler,
        memoryMb: fn.memory ?? fn.memorySize ?? provider.memorySize ?? 1024,
        zipBytes: zip.length,
        unzippedBytes: entries.reduce((sum, entry) => sum + entry.size, 0),
        entries,
        handlerEntry: handlerEntry.name,
        contents: contentsOf(metafile),
      };
    });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
    rmSync(metafiles, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    rmSync(join(root, workFolder), { recursive: true, force: true });
  }
}
