import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_PAGES, readResults, writtenFigures } from '../../scripts/bench/bench-docs.js';

// The figures the README and docs/performance.md quote are those of bench/results.json: npm run
// bench writes them there from the file it writes (scripts/bench/bench-docs.ts). A page edited by
// hand, or a results file committed without its pages, fails here.

const root = resolve(import.meta.dirname, '../..');

describe('the figures of the last bench run', () => {
  it.each(Object.keys(BENCH_PAGES))('stand in %s as npm run bench writes them from bench/results.json', (page) => {
    const written = writtenFigures(readFileSync(resolve(root, page), 'utf8'));
    expect(written, `${page}: no markers for the bench's figures`).toBeDefined();
    expect(
      written,
      `${page} differs from bench/results.json: run npm run bench, or npm run bench -- --docs to write them from the file`,
    ).toBe(BENCH_PAGES[page]!(readResults(root)));
  });

  it('are of a run that measured every function of the deploy (each has its role in serverless/permissions.cjs)', () => {
    const deployed = Object.keys(createRequire(import.meta.url)('../../serverless/permissions.cjs') as Record<string, unknown>);
    expect(
      readResults(root)
        .bundles.map(({ name }) => name)
        .sort(),
    ).toEqual(deployed.sort());
  });
});
