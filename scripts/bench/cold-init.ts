import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { parse } from 'yaml';
import type { PackagedFunction } from './package-functions.js';
import { median, percentile, round } from './stats.js';

// Cold init: how long a fresh Node process takes to import a function's deployed bundle,
// beside a "floor" bundle built with the same esbuild options that only imports and
// constructs the AWS SDK clients the function uses. The ratio is what our own code and
// libraries add to the SDK's unavoidable cost.

export interface ColdInit {
  name: string;
  clients: string[];
  floorBytes: number;
  runs: number;
  /** Medians of the wall time of the import, in ms. */
  initMs: number;
  floorMs: number;
  /**
   * Median of the runs' ratios, each import over its floor's, imported at the same time: a load
   * that comes and goes falls on both halves of a pair, where a ratio of two medians takes it twice.
   */
  ratio: number;
  /** The middle half of the runs' ratios (25th and 75th percentiles): how far one run's ratio may move. */
  ratioIqr: [number, number];
  /** Medians of the CPU time the import used (all threads): steadier than wall time on a busy machine. */
  initCpuMs: number;
  floorCpuMs: number;
  /** The same two figures for CPU time. */
  cpuRatio: number;
  cpuRatioIqr: [number, number];
}

/** How a floor constructs each SDK client, keyed by the package a bundle contains. */
const FLOOR_RECIPES: Record<string, string> = {
  'client-dynamodb':
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n" +
    'export const dynamo = new DynamoDBClient({ region: process.env.AWS_REGION });\n',
  'lib-dynamodb':
    "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\n" + 'export const documents = DynamoDBDocumentClient.from(dynamo);\n',
  'client-sns':
    "import { SNSClient } from '@aws-sdk/client-sns';\n" + 'export const sns = new SNSClient({ region: process.env.AWS_REGION });\n',
  'client-ssm':
    "import { SSMClient } from '@aws-sdk/client-ssm';\n" + 'export const ssm = new SSMClient({ region: process.env.AWS_REGION });\n',
  'client-sqs':
    "import { SQSClient } from '@aws-sdk/client-sqs';\n" + 'export const sqs = new SQSClient({ region: process.env.AWS_REGION });\n',
  'client-eventbridge':
    "import { EventBridgeClient } from '@aws-sdk/client-eventbridge';\n" +
    'export const eventBridge = new EventBridgeClient({ region: process.env.AWS_REGION });\n',
};

/**
 * Options serverless-esbuild passes on to esbuild, read from serverless.yml's custom.esbuild, with
 * its plugins (serverless/esbuild-plugins.cjs): the console's function imports a page only its
 * plugin can build.
 */
export function esbuildOptions(root: string): BuildOptions {
  const yaml = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' });
  const custom = yaml.custom.esbuild as Record<string, unknown>;
  const plugins = typeof custom.plugins === 'string' ? (createRequire(import.meta.url)(join(root, custom.plugins)) as Plugin[]) : [];
  const passed = [
    'bundle',
    'minify',
    'sourcemap',
    'target',
    'platform',
    'format',
    'mainFields',
    'banner',
    'treeShaking',
    'keepNames',
    'define',
  ];
  return { ...(Object.fromEntries(passed.filter((key) => key in custom).map((key) => [key, custom[key]])) as BuildOptions), plugins };
}

/** The SDK packages (of those we know how to build a floor for) a function's source pulls in. */
async function clientsUsed(root: string, options: BuildOptions, handler: string): Promise<string[]> {
  const entry = `${handler.slice(0, handler.lastIndexOf('.'))}.ts`;
  const result = await build({
    ...options,
    entryPoints: [join(root, entry)],
    write: false,
    metafile: true,
    logLevel: 'silent',
    outdir: tmpdir(),
  });
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = input.match(/node_modules\/@aws-sdk\/((client|lib)-[a-z0-9-]+)\//);
    if (match) packages.add(match[1]!);
  }
  for (const name of packages) {
    if (!FLOOR_RECIPES[name]) throw new Error(`${entry} uses @aws-sdk/${name}: add a floor recipe for it in scripts/bench/cold-init.ts`);
  }
  return Object.keys(FLOOR_RECIPES).filter((name) => packages.has(name));
}

export async function buildFloor(root: string, options: BuildOptions, clients: string[], outfile: string): Promise<number> {
  const contents = clients.map((name) => FLOOR_RECIPES[name]).join('') || 'export {};\n';
  await build({ ...options, stdin: { contents, resolveDir: root, sourcefile: 'floor.mjs', loader: 'js' }, outfile, logLevel: 'silent' });
  return readFileSync(outfile).length;
}

/** Settings the bundles read at import; no endpoint is reached while importing. */
const CHILD_ENV = {
  STAGE: 'bench',
  TABLE_NAME: 'wallet-auth-bench',
  SERVER_SECRET: '5e'.repeat(32),
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  LOG_LEVEL: 'INFO',
  // As deployed, codes go through the SMS queue: its URL is a deploy setting.
  SMS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/wallet-auth-bench-sms',
  // As deployed, the events' publisher has its bus and its dead-letter queue.
  EVENT_BUS_NAME: 'wallet-auth-bench',
  EVENTS_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/wallet-auth-bench-events-dead-letters',
  // Node 20 here, 22 on Lambda: the SDK would otherwise print a warning at import.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface Timing {
  ms: number;
  cpuMs: number;
}

/** Wall and CPU time to import one module in a fresh process, measured inside that process. */
export async function timeImport(file: string, expectHandler: boolean): Promise<Timing> {
  const check = expectHandler ? "if (typeof module.handler !== 'function') throw new Error('no handler export');" : '';
  const script =
    `const cpu = process.cpuUsage(); const start = performance.now(); ` +
    `const module = await import(${JSON.stringify(pathToFileURL(file).href)}); ` +
    `const ms = performance.now() - start; const used = process.cpuUsage(cpu); ${check} ` +
    `process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...CHILD_ENV },
  });
  return JSON.parse(stdout) as Timing;
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

export async function measureColdInit(root: string, functions: PackagedFunction[], runs: number): Promise<ColdInit[]> {
  const options = esbuildOptions(root);
  const workDir = mkdtempSync(join(tmpdir(), 'wallet-bench-cold-'));
  try {
    const subjects = [];
    for (const fn of functions) {
      const unpacked = join(workDir, fn.name);
      for (const entry of fn.entries) {
        if (entry.name.endsWith('/')) continue;
        mkdirSync(dirname(join(unpacked, entry.name)), { recursive: true });
        writeFileSync(join(unpacked, entry.name), entry.data());
      }
      const clients = await clientsUsed(root, options, fn.handler);
      const floorFile = join(workDir, `${fn.name}-floor.mjs`);
      const floorBytes = await buildFloor(root, options, clients, floorFile);
      subjects.push({
        fn,
        clients,
        floorBytes,
        handlerFile: join(unpacked, fn.handlerEntry),
        floorFile,
        init: [] as Timing[],
        floor: [] as Timing[],
      });
    }
    // One unmeasured import each puts the files in the page cache. Then each function is imported
    // at the same time as its floor, one on each core, the functions in a random order: whatever
    // else the machine does falls on both halves of a pair, and a run takes half as long.
    const pair = (subject: { handlerFile: string; floorFile: string }) =>
      Promise.all([timeImport(subject.handlerFile, true), timeImport(subject.floorFile, false)]);
    for (const subject of subjects) await pair(subject);
    for (let run = 0; run < runs; run++) {
      for (const subject of shuffled(subjects)) {
        const [init, floor] = await pair(subject);
        subject.init.push(init);
        subject.floor.push(floor);
      }
    }
    return subjects.map(({ fn, clients, floorBytes, init, floor }) => {
      const [initMs, floorMs] = [median(init.map((t) => t.ms)), median(floor.map((t) => t.ms))];
      const [initCpuMs, floorCpuMs] = [median(init.map((t) => t.cpuMs)), median(floor.map((t) => t.cpuMs))];
      const ratios = init.map((timing, run) => timing.ms / floor[run]!.ms);
      const cpuRatios = init.map((timing, run) => timing.cpuMs / floor[run]!.cpuMs);
      const iqr = (values: number[]): [number, number] => [round(percentile(values, 0.25)), round(percentile(values, 0.75))];
      return {
        name: fn.name,
        clients,
        floorBytes,
        runs,
        initMs: round(initMs),
        floorMs: round(floorMs),
        ratio: round(median(ratios)),
        ratioIqr: iqr(ratios),
        initCpuMs: round(initCpuMs),
        floorCpuMs: round(floorCpuMs),
        cpuRatio: round(median(cpuRatios)),
        cpuRatioIqr: iqr(cpuRatios),
      };
    });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
