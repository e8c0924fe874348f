import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, githubSlug, headingAnchors, markdownLinks } from './markdown.js';

// Every relative link of README.md and docs/*.md leads somewhere: to a file of the repository,
// and with an #anchor, to a heading of that page (as GitHub anchors headings).

const root = resolve(import.meta.dirname, '../..');
const pages = docPages(root);

/** What is wrong with one link of a page, or undefined when it leads where it says. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return undefined;
  const [path = '', anchor] = target.split('#', 2);
  const file = path ? resolve(dirname(resolve(root, page)), path) : resolve(root, page);
  if (!file.startsWith(`${root}/`)) return `${target} leaves the repository`;
  if (!existsSync(file)) return `${target}: no file ${relative(root, file)}`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md') || statSync(file).isDirectory()) return `${target}: an anchor into a file that is not Markdown`;
  const anchors = headingAnchors(readFileSync(file, 'utf8'));
  return anchors.has(anchor) ? undefined : `${target}: no heading of ${relative(root, file)} has the anchor #${anchor}`;
}

describe('a heading anchor', () => {
  it('is the heading lower-cased, punctuation dropped but - and _, spaces as -', () => {
    expect(githubSlug('Retrying safely: Idempotency-Key')).toBe('retrying-safely-idempotency-key');
    expect(githubSlug("A company's SMS text")).toBe('a-companys-sms-text');
    expect(githubSlug('The answer time of login_phone')).toBe('the-answer-time-of-login_phone');
    expect(githubSlug('Dependencies, and why')).toBe('dependencies-and-why');
    expect(githubSlug('`npm run bench` (figures)')).toBe('npm-run-bench-figures');
  });

  it('is numbered when a heading repeats, and not taken from code blocks', () => {
    const anchors = headingAnchors('# Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['notes', 'notes-1']);
  });
});

describe('the links of README.md and docs/*.md', () => {
  it('finds links in prose, tables and lists, not in code', () => {
    const links = markdownLinks('[a](a.md) | [`b`](b.md#x)\n`[c](c.md)`\n```\n[d](d.md)\n```\n- [e](https://example.com)');
    expect(links.map(({ target }) => target)).toEqual(['a.md', 'b.md#x', 'https://example.com']);
  });

  it('reports a missing file and a missing anchor', () => {
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toMatch(/no file docs\/no-such-page.md/);
    expect(brokenLink('README.md', 'docs/data-layout.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('docs/api.md', 'decisions.md')).toBeUndefined();
  });

  it.each(pages)('%s: every relative link resolves to a file and, with an anchor, to a heading', (page) => {
    const links = markdownLinks(readFileSync(resolve(root, page), 'utf8'));
    const broken = links.flatMap(({ target, line }) => {
      const problem = brokenLink(page, target);
      return problem ? [`${page}:${line}: ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });
});
