import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { citationsOf, testTitles, titleHas } from './citations.js';
import { docPages } from './markdown.js';

// Every test the docs cite exists: a `tests/....test.ts` (or `client/tests/...`) path names a file
// that is there, and each "quoted name" after it, up to the next cited file or the end of its
// table cell or paragraph, is a title of that file's tests (an it, test or describe). A name ending
// in "..." is the start of a title; a title's ${...} and %s holes stand for any text.

const root = resolve(import.meta.dirname, '../..');
const pages = docPages(root);

describe('a citation of a test', () => {
  it('is read from table cells and paragraphs, names after their file, up to the next file', () => {
    const page =
      '| a | `tests/x.test.ts` "one", "two ..." |\n\nSee `tests/y.test.ts` "three"\nand "four"; `client/tests/z.test.ts` "five".\n';
    expect(citationsOf('p.md', page).map(({ file, name }) => `${file} ${name}`)).toEqual([
      'tests/x.test.ts one',
      'tests/x.test.ts two ...',
      'tests/y.test.ts three',
      'tests/y.test.ts four',
      'client/tests/z.test.ts five',
    ]);
  });

  it("matches a title whole, or its start before ..., the title's holes standing for any text", () => {
    expect(titleHas('answers 503 at its deadline', 'answers 503 at its deadline')).toBe(true);
    expect(titleHas('answers 503 at its deadline', 'answers 503 ...')).toBe(true);
    expect(titleHas('answers 503 at its deadline', 'answers 504 ...')).toBe(false);
    expect(titleHas('answers 503 at its deadline', 'answers 503')).toBe(false);
    expect(titleHas('answers 503 at its deadline', '... at its deadline')).toBe(true);
    expect(titleHas('answers 503 at its deadline', 'answers ..., at its deadline')).toBe(false);
    expect(titleHas('answers 503 at its deadline', 'answers ... its deadline')).toBe(true);
    expect(titleHas(`is replayed for ${'$'}{SECONDS} s, then refused`, 'is replayed for 300 s, then refused')).toBe(true);
    expect(titleHas('refuses %s changed to %j with 19', 'refuses %s changed to %j with 19')).toBe(true);
    expect(titleHas('%s: wants a reason', 'adminUsersStatus: wants a reason')).toBe(true);
  });
});

describe('the tests the docs cite', () => {
  it.each(pages)('%s: each cited test file exists and holds each title named after it', (page) => {
    const stale = citationsOf(page, readFileSync(resolve(root, page), 'utf8')).flatMap(({ file, name, at }) => {
      if (!existsSync(resolve(root, file))) return [`${at}: no file ${file}`];
      const titles = testTitles(readFileSync(resolve(root, file), 'utf8'));
      return titles.some((title) => titleHas(title, name)) ? [] : [`${at}: ${file} has no test "${name}"`];
    });
    expect(stale).toEqual([]);
  });
});
