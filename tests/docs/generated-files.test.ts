import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every file a command writes is marked linguist-generated in .gitattributes, under a line naming
// the command that remakes it and the test that checks it is current; that command's script names
// the file, and the test names the command. A file saying "do not edit" that is not marked fails here.

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

/** The generated files of .gitattributes, each with the command and test named on the line above it. */
function generatedFiles(): { file: string; command: string; test: string }[] {
  const lines = read('.gitattributes').split('\n');
  return lines.flatMap((line, index) => {
    const file = line.match(/^(\S+)\s+linguist-generated=true$/)?.[1];
    if (!file) return [];
    const named = lines[index - 1]?.match(/^# (npm run [\w:-]+), checked by (\S+\.test\.ts)/);
    return [{ file, command: named?.[1] ?? '(no command named)', test: named?.[2] ?? '(no test named)' }];
  });
}

describe('the generated files', () => {
  const generated = generatedFiles();

  it('are each marked, with the command that remakes it and the test that checks it', () => {
    expect(generated.map(({ file }) => file)).toEqual(expect.arrayContaining(['docs/openapi.json', 'bench/results.json']));
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    for (const { file, command } of generated) {
      expect(tracked, file).toContain(file);
      expect(Object.keys((JSON.parse(read('package.json')) as { scripts: object }).scripts)).toContain(command.replace('npm run ', ''));
    }
  });

  it.each(generated.map(({ file, command, test }) => [file, command, test]))('%s: %s writes it, and %s names it', (file, command, test) => {
    // The command's script (package.json: tsx scripts/<file>.ts) names the file it writes.
    const script = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts[command.replace('npm run ', '')];
    const writer = script?.match(/tsx (scripts\/[\w-]+\.ts)/)?.[1];
    const written = [writer, ...(writer === 'scripts/bench.ts' ? ['scripts/bench/bench-docs.ts'] : [])].map((path) =>
      path ? read(path) : '',
    );
    expect(
      written.some((source) => source.includes(file)),
      `${command} names ${file}`,
    ).toBe(true);
    expect(read(test), `${test} names ${command}`).toContain(command);
  });

  it('include every tracked file that says it is generated', () => {
    const marked = new Set(generated.map(({ file }) => file));
    const saying = execFileSync('git', ['grep', '-l', '-I', '-i', 'generated .*do not edit', '--', '.', ':!tests', ':!scripts'], {
      cwd: root,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .filter(Boolean);
    expect(saying.filter((file) => !marked.has(file))).toEqual([]);
  });
});
