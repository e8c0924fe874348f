import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../lib/api/endpoints.js';
import { EVENT_TYPES } from '../../lib/events/event-types.js';

// The counts and lists the docs give, checked against what they count: the README's number of event
// types, every operator command and each of its options in docs/operator-commands.md, and the routes
// the walk-through calls against those it says it leaves out.

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

/** npm scripts that run a file of scripts/ for a developer, not against a stage's data: documented in the README or performance.md. */
const DEVELOPER_SCRIPTS = [
  'start',
  'openapi',
  'docs',
  'bench',
  'load',
  'fuzz',
  'chaos',
  'simulate',
  'device:key',
  'device:sign',
  'events:list',
];

describe('the counts the docs give', () => {
  it("README's number of event types is lib/events/event-types.ts's", () => {
    expect(read('README.md')).toContain(`The ${EVENT_TYPES.length} types`);
  });

  it('docs/operator-commands.md shows every operator command of package.json with each option its script takes, and no other', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const commands = Object.entries(scripts).flatMap(([name, command]) => {
      const file = command.match(/tsx (scripts\/[\w-]+\.ts)/)?.[1];
      return file && !DEVELOPER_SCRIPTS.includes(name) ? [{ name, file }] : [];
    });
    const page = read('docs/operator-commands.md');
    const shown = [...page.matchAll(/npm run -s ([\w:-]+)/g)].map((match) => match[1]!);
    expect([...new Set(shown)].sort()).toEqual(commands.map(({ name }) => name).sort());
    for (const { name, file } of commands) {
      // The command's lines: from its own `npm run -s` to the next one's.
      const start = page.indexOf(`npm run -s ${name} `);
      const block = page.slice(start, page.indexOf('npm run -s ', start + 1) >>> 0);
      const options = [...read(file).matchAll(/^\s*(?:'([a-z][a-z-]*)'|([a-z][a-z]*)): \{ type: '(?:string|boolean)'/gm)];
      for (const [, quoted, bare] of options) expect(block, `${name}: --${quoted ?? bare}`).toContain(`--${quoted ?? bare}`);
    }
  });

  it('the walk-through calls every route but those it names as left out: the back office’s and the phone change’s cancel', () => {
    const page = read('docs/walkthrough.md');
    const [intro = '', ...blocks] = page.split('<!-- walkthrough -->');
    const walked = blocks.join('\n');
    const left = Object.values(endpoints).filter((endpoint) => !walked.includes(`$API${endpoint.path}`));
    const backOffice = Object.values(endpoints).filter((endpoint) => endpoint.path.startsWith('/wallet/v3/admin/'));
    expect(intro).toContain(`the back office's ${backOffice.length} routes under \`/wallet/v3/admin/\``);
    for (const endpoint of left.filter((each) => !backOffice.includes(each))) {
      expect(intro, `${endpoint.operationId} is neither walked through nor named as left out`).toContain(
        `\`${endpoint.method} ${endpoint.path}\``,
      );
    }
    expect(left.length).toBeLessThan(Object.keys(endpoints).length / 2);
  });
});

describe('the deploy and on-call steps', () => {
  /**
   * The steps of a page that reach a stage (aws, serverless deploy, an operator command): its sh
   * blocks' commands, and its code spans that give options (`serverless deploy` alone names a tool).
   */
  function stageCommands(page: string): string[] {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const operator = Object.keys(scripts).filter((name) => /tsx scripts\//.test(scripts[name]!) && !DEVELOPER_SCRIPTS.includes(name));
    const fenced = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, block]) =>
      block!
        .replace(/\\\n\s*/g, ' ')
        .split('\n')
        .map((line) => line.replace(/#.*$/, '')),
    );
    const spans = [...page.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)]
      .map(([, span]) => span!)
      .filter((span) => / --\w/.test(span));
    const reaches = (line: string) =>
      /(^|\s|\$\()aws \w/.test(line) ||
      /serverless deploy/.test(line) ||
      operator.some((name) => new RegExp(`npm run (-s )?${name}\\b`).test(line));
    return [...fenced, ...spans].map((line) => line.trim()).filter(reaches);
  }

  it.each(['docs/deploying.md', 'docs/operations.md'])('%s: every command that reaches a stage names its region', (path) => {
    const commands = stageCommands(read(path));
    expect(commands.length).toBeGreaterThan(3);
    expect(commands.filter((command) => !/--region \S+|AWS_REGION=\S+/.test(command))).toEqual([]);
  });
});
