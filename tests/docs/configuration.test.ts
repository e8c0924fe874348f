import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Environment, readConfig } from '../../lib/config.js';
import { markdownTable } from './markdown.js';

// docs/configuration.md against the code: every variable readConfig reads has a row. The names
// come from watching readConfig read an environment, never from a list kept beside it.

const root = resolve(import.meta.dirname, '../..');

/** The variables readConfig reads from an environment holding `values`. */
function variablesRead(values: Environment): Set<string> {
  const read = new Set<string>();
  const environment = new Proxy(values, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  readConfig(environment);
  return read;
}

/** The variable names of the first column of docs/configuration.md's table. */
function documentedVariables(): Set<string> {
  const rows = markdownTable(readFileSync(resolve(root, 'docs/configuration.md'), 'utf8'), ['variable', 'default', 'meaning']);
  return new Set(rows.flatMap(([variable]) => [...variable!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)));
}

describe('docs/configuration.md', () => {
  it('watches readConfig read its variables', () => {
    const read = variablesRead({});
    expect(read).toContain('TABLE_NAME');
    expect(read).toContain('OTP_TTL_SECONDS');
  });

  it('has a row for every variable readConfig reads, on the local stage and on a deployed one', () => {
    const read = new Set([...variablesRead({}), ...variablesRead({ STAGE: 'prod', SMS_QUEUE_URL: 'https://sqs.example/queue' })]);
    const documented = documentedVariables();
    expect([...read].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });
});
