import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config.js';
import { useOfflineService } from '../e2e/offline-server.js';
import { demoCompanyId } from '../harness/demo-company.js';
import { type FakeEventBridge, startFakeEventBridge } from '../harness/eventbridge-fake.js';
import { inProcessService, lambdaContext } from '../harness/in-process-service.js';
import { type StreamPoller, startStreamPoller } from '../harness/stream-poller.js';
import { differences, documentedAnswers, parseDocumented, walkthroughBlocks } from './walkthrough.js';

// The walk-through (docs/walkthrough.md), run as a reader runs it: its marked ```sh blocks in order, in one
// /bin/sh (with -e and -u, so a failing command or an unset variable stops it), against the real
// service under serverless-offline (the run's shared one), and the operator commands as npm runs
// them. Each block must print the answers it documents.

const root = resolve(import.meta.dirname, '../..');
const blocks = walkthroughBlocks(readFileSync(resolve(root, 'docs/walkthrough.md'), 'utf8'));
const blockStart = (index: number) => `::walkthrough block ${index}::`;
const END = '::walkthrough end::';

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  seconds: number;
}

/**
 * How long the blocks may run before they are ended: a loaded machine's run takes minutes (each
 * operator command starts a Node process), so the bound is the hook's, not a guess at the speed.
 */
const RUN_TIMEOUT_MS = 540_000;

/** Runs a script with /bin/sh -eu in the repository's folder; stdin is empty, as nothing should read it. */
function runShell(script: string, env: Record<string, string>): Promise<Run> {
  const folder = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  const file = join(folder, 'walkthrough.sh');
  writeFileSync(file, script);
  const started = Date.now();
  // Its own process group, so a run that hangs is ended with everything it started.
  const child = spawn('/bin/sh', ['-eu', file], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((done) =>
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      rmSync(folder, { recursive: true, force: true });
      done({ stdout, stderr, exitCode, seconds: (Date.now() - started) / 1000 });
    }),
  );
}

/** What a block printed on stdout, or undefined when the run stopped inside it (or before). */
function outputOf(run: Run, index: number): string | undefined {
  const start = run.stdout.indexOf(`${blockStart(index)}\n`);
  const next = index + 1 < blocks.length ? blockStart(index + 1) : END;
  const end = run.stdout.indexOf(`${next}\n`);
  if (start < 0 || end < 0) return undefined;
  return run.stdout.slice(start + blockStart(index).length + 1, end);
}

describe('a documented answer', () => {
  const matches = (documented: string, printed: unknown) => differences(parseDocumented(documented), printed);

  it('matches the fields it shows, "..." and <placeholders> standing for any value', () => {
    const printed = { success: 1, error: [], data: { user_id: 'ab'.repeat(16), token: { token: 'x.y' }, created: 17, extra: true } };
    expect(matches('{"success":1,"error":[],"data":{"user_id":"<32 hex>","token":{"token":"..."},"created":<seconds>}}', printed)).toEqual(
      [],
    );
    expect(matches('{"data":{"token":{"token":"x..."},...}}', printed)).toEqual([]);
  });

  it('fails on a different value, a missing field, a non-hex id or an array of another length', () => {
    const printed = { success: 0, error: [15], data: { user_id: 'not hex', items: [1, 2] } };
    expect(matches('{"success":1}', printed)).toEqual(['$.success: 0 is not 1']);
    expect(matches('{"error":[15],"data":{"message":"BAD_REQUEST"}}', printed)).toEqual(['$.data.message: undefined is not "BAD_REQUEST"']);
    expect(matches('{"data":{"user_id":"<32 hex>"}}', printed)).toHaveLength(1);
    expect(matches('{"data":{"items":[1]}}', printed)).toHaveLength(1);
    expect(matches('{"data":{"items":[1, ...]}}', printed)).toEqual([]);
    expect(matches('{"data":{"items":[1,2,3, ...]}}', printed)).toHaveLength(1);
  });

  it('is read from # comments, over several lines, without the words after it', () => {
    const script = 'echo 1\n# {"a":1,\n#   "b":"c d"}   (and a note)\n# a plain comment\n#   {"e":[2]}';
    expect(documentedAnswers(script)).toEqual(['{"a":1, "b":"c d"}', '{"e":[2]}']);
  });
});

describe('the walk-through, pasted block by block', () => {
  // The run's shared serverless-offline (stage "test"), with a data folder of the walk-through's own.
  const service = useOfflineService();
  let dataDir = '';
  let run: Run;
  let sink: FakeEventBridge | undefined;
  let poller: StreamPoller | undefined;

  beforeAll(async () => {
    const { server } = service;
    dataDir = mkdtempSync(join(tmpdir(), 'walkthrough-data-'));
    // What npm start keeps in .data/: the demo company, and the outbox (the server's own, which
    // other files' codes share: the blocks pick theirs by phone number).
    symlinkSync(server.env.SMS_OUTBOX_FILE!, join(dataDir, 'sms-outbox.jsonl'));
    const demoCompany = await demoCompanyId(server.local.app, join(dataDir, 'demo-company.json'));
    // The events, delivered as npm start delivers them (scripts/start.ts): the table's stream to
    // eventsPublish, which puts them on a loopback EventBridge writing the data folder's
    // events.jsonl. The shared server runs without a bus, so eventsPublish runs here, in process.
    sink = await startFakeEventBridge({ eventsFile: join(dataDir, 'events.jsonl'), busName: 'wallet-auth-walkthrough' });
    const publisher = inProcessService(
      readConfig({
        ...server.env,
        EVENT_BUS_NAME: 'wallet-auth-walkthrough',
        EVENTBRIDGE_ENDPOINT: sink.endpoint,
        EVENTS_DLQ_URL: sink.queueUrl,
      }),
    );
    // Other files write to the shared table at the same time: only what comes from now on, and only
    // the demo company's records, are the walk-through's (npm start's table holds nothing else).
    const company = `C#${demoCompany}#`;
    poller = await startStreamPoller({
      endpoint: server.env.DYNAMODB_ENDPOINT!,
      tableName: server.env.TABLE_NAME!,
      from: 'latest',
      consumer: (event) => {
        const Records = event.Records.filter((record) => record.dynamodb?.Keys?.pk?.S?.startsWith(company));
        return Records.length ? publisher.streamed.eventsPublish({ Records }, lambdaContext(30_000)) : Promise.resolve(undefined);
      },
      idleMs: 100,
    });

    const script = `${blocks.map((block, index) => `echo '${blockStart(index)}'\n${block.script}\n`).join('')}echo '${END}'\n`;
    // What the blocks read beyond a reader's shell: where the service and its data are, and for
    // the operator commands the same table and secret, by the variables a deployed stage uses.
    // Their log level is the default, as a reader's (their audit lines must stay off stdout), and
    // the SDK's Node 20 warning is not turned off here: npm's scripts must do it themselves.
    const { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _, ...readerEnv } = process.env;
    const shellEnv = {
      ...readerEnv,
      API: server.baseUrl,
      LAMBDA: server.lambdaUrl,
      DATA: dataDir,
      FUNCTIONS: `wallet-auth-${server.env.STAGE}`,
      STAGE: server.env.STAGE!,
      TABLE_NAME: server.env.TABLE_NAME!,
      DYNAMODB_ENDPOINT: server.env.DYNAMODB_ENDPOINT!,
      SERVER_SECRET_FILE: server.env.SERVER_SECRET_FILE!,
      SIGNING_KEYS_FILE: server.env.SIGNING_KEYS_FILE!,
      TOKEN_ISSUER: server.env.TOKEN_ISSUER!,
      DYNAMODB_TIMEOUT_MS: server.env.DYNAMODB_TIMEOUT_MS!,
      LOG_LEVEL: 'INFO',
      // Where npm run events:list reads (npm start's is .data/events.jsonl).
      EVENTS_FILE: join(dataDir, 'events.jsonl'),
    };
    run = await runShell(script, shellEnv as Record<string, string>);
    console.info(`walk-through: ${blocks.length} blocks in ${run.seconds.toFixed(1)} s`);
  }, RUN_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await poller?.close();
    await sink?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints no warning of the AWS SDK about Node 20 from the operator commands', () => {
    expect(run.stdout, 'the walk-through ran to its end').toContain(END);
    expect(run.stderr).not.toContain('NodeVersionSupportWarning');
  });

  it('has blocks, each documenting what it prints', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    for (const block of blocks) expect(block.answers.length, `walk-through line ${block.line}`).toBeGreaterThan(0);
  });

  blocks.forEach(({ heading, line, answers }, index) => {
    it(`block ${index + 1} (walk-through line ${line}, under "${heading}") prints its documented answers`, () => {
      const output = outputOf(run, index);
      if (output === undefined) {
        const stopped = blocks.findLastIndex((_, at) => run.stdout.includes(`${blockStart(at)}\n`));
        expect.fail(
          stopped === index || stopped < 0
            ? `the walk-through stopped in this block (sh exited ${run.exitCode}); stderr:\n${run.stderr.slice(-3000)}`
            : `not reached: the walk-through stopped in block ${stopped + 1} (walk-through line ${blocks[stopped]?.line})`,
        );
      }
      const printed = output!
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as unknown);
      const listing = `printed:\n${printed.map((value) => JSON.stringify(value)).join('\n')}\ndocumented:\n${answers.join('\n')}`;
      expect(
        printed.length,
        `the block at walk-through line ${line} printed ${printed.length} answers, documents ${answers.length}; ${listing}`,
      ).toBe(answers.length);
      answers.forEach((answer, at) => {
        expect(
          differences(parseDocumented(answer), printed[at]),
          `answer ${at + 1} of the block at walk-through line ${line}; ${listing}`,
        ).toEqual([]);
      });
    });
  });
});
